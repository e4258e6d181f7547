"""Sizes and record counts of a scenario file, read from its JSON only (no ARE needed).

Used by make_gaia2_corpus.py to print its summary and by tests/e2e/test_gaia2_corpus.py to check the
corpus on the host.
"""

from __future__ import annotations

import json
from typing import Any

# Instance name -> class name, as in real Gaia2 files (SystemApp: ARE adds it when absent).
INSTANCES = {
    "AgentUserInterface": "AgentUserInterface",
    "Calendar": "CalendarApp",
    "Contacts": "ContactsApp",
    "InternalContacts": "ContactsApp",
    "Emails": "EmailClientV2",
    "Messages": "MessagingAppV2",
    "Chats": "MessagingAppV2",
    "RentAFlat": "ApartmentListingApp",
    "Cabs": "CabApp",
    "City": "CityApp",
    "Shopping": "ShoppingApp",
    "Files": "SandboxLocalFileSystem",
    "SystemApp": "SystemApp",
}


def file_nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    if node.get("type") == "file":
        return [node]
    return [leaf for child in node.get("children") or [] for leaf in file_nodes(child)]


def record_counts(doc: dict[str, Any]) -> dict[str, int]:
    """Records per kind over all apps of one scenario document."""
    states = {app["name"]: app.get("app_state") or {} for app in doc.get("apps", [])}
    counts = {
        "contacts": sum(len(states.get(n, {}).get("contacts", {})) for n in ("Contacts", "InternalContacts")),
        "emails": sum(len(f.get("emails", [])) for f in states.get("Emails", {}).get("folders", {}).values()),
        "messages": sum(
            len(c.get("messages", []))
            for n in ("Messages", "Chats")
            for c in states.get(n, {}).get("conversations", {}).values()
        ),
        "events": len(states.get("Calendar", {}).get("events", {})),
        "products": len(states.get("Shopping", {}).get("products", {})),
        "items": sum(
            len(p.get("variants", {})) for p in states.get("Shopping", {}).get("products", {}).values()
        ),
        "orders": len(states.get("Shopping", {}).get("orders", {})),
        "apartments": len(states.get("RentAFlat", {}).get("apartments", {})),
        "rides": len(states.get("Cabs", {}).get("ride_history", [])),
        "zip_codes": len(states.get("City", {}).get("crime_data", {})),
        "files": len(file_nodes(states.get("Files", {}).get("files", {}))),
    }
    counts["total"] = sum(counts.values())
    return counts


def app_state_bytes(doc: dict[str, Any]) -> int:
    """Size of the `apps` part (the universe) as it is written in the file."""
    return len(json.dumps(doc.get("apps", []), ensure_ascii=False).encode())


def summary_line(name: str, size: int, doc: dict[str, Any]) -> str:
    counts = record_counts(doc)
    tags = ",".join(doc.get("metadata", {}).get("definition", {}).get("tags") or [])
    parts = " ".join(f"{k}={v}" for k, v in counts.items())
    return f"{name}: {size / 1e6:.2f} MB file, {app_state_bytes(doc) / 1e6:.2f} MB app state, tags {tags}; {parts}"
