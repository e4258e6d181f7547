"""Small text rules used across layers: one-line messages, filesystem-safe names, timestamps."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def one_line(text: str, limit: int = 500) -> str:
    """Collapse whitespace so messages fit a table cell and a JSON line."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def safe_name(text: str) -> str:
    """Replace anything outside [A-Za-z0-9_.-] so the text can name a directory or a container."""
    cleaned = _UNSAFE.sub("_", text).strip("._-")
    return cleaned or "scenario"


def now_iso() -> str:
    """UTC time in ISO 8601, to the second: what every file of ours records."""
    return datetime.now(UTC).isoformat(timespec="seconds")


_CONTROL = {c: f"\\x{c:02x}" for c in list(range(0x20)) + [0x7F] if c not in (0x09,)}


def printable(text: str) -> str:
    """Text safe for a terminal: lone surrogates and control characters shown as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8").translate(_CONTROL)
