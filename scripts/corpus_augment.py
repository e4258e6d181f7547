"""Gaia2's augmentation data for a scenario: every tool renamed and re-described.

Real Gaia2 files end with `augmentation: {tool_names_mapping, tool_descriptions_mapping}` (what
ARE's noise mode applies through `ToolAugmentationConfig`; ARE's importer reads it into
`scenario.augmentation_data`, its exporter does not write it). Keys are ARE tool names
(`<instance>__<function>`) of every app except AgentUserInterface and SystemApp, as in ARE's
`Scenario.apply_augmentation_configs`. The new names and descriptions are derived
deterministically from the originals.
"""

from __future__ import annotations

from typing import Any

SKIPPED_APPS = ("AgentUserInterface", "SystemApp")
SYNONYMS = {
    "add": "create",
    "get": "fetch",
    "list": "show",
    "send": "dispatch",
    "delete": "erase",
    "remove": "drop",
    "search": "find",
    "calendar": "agenda",
    "event": "entry",
    "events": "entries",
    "email": "mail",
    "emails": "mails",
    "message": "note",
    "messages": "notes",
    "contact": "person",
    "contacts": "people",
    "conversation": "thread",
    "conversations": "threads",
    "order": "purchase",
    "orders": "purchases",
    "ride": "trip",
    "rides": "trips",
    "apartment": "listing",
    "apartments": "listings",
    "save": "bookmark",
    "saved": "bookmarked",
    "product": "article",
    "products": "articles",
    "cart": "basket",
    "read": "open",
    "edit": "update",
    "reply": "respond",
    "forward": "relay",
    "user": "member",
    "users": "members",
}


def renamed(function: str) -> str:
    words = [SYNONYMS.get(word, word) for word in function.split("_")]
    new = "_".join(words)
    return new if new != function else f"{function}_v2"


def redescribed(description: str) -> str:
    text = " ".join((description or "").split())
    head, _, rest = text.partition(". ")
    head = head.rstrip(".")
    lead = head[:1].lower() + head[1:] if head else "run this operation"
    return f"Use this tool to {lead}." + (f" {rest}" if rest else "")


def augmentation(apps: list[Any]) -> dict[str, dict[str, str]]:
    names: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    for app in apps:
        if app.name in SKIPPED_APPS:
            continue
        for tool in sorted(app.get_tools(), key=lambda t: t.name):
            prefix, _, function = tool.name.partition("__")
            names[tool.name] = f"{prefix}__{renamed(function)}"
            descriptions[tool.name] = redescribed(tool.function_description)
    return {"tool_names_mapping": names, "tool_descriptions_mapping": descriptions}
