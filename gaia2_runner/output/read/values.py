"""Values read from files an agent or a provider could have shaped: counts, numbers, names and
display text, each turned into its declared type or "unknown" (None), never trusted as found.

Shared by the trace parsers, the run records and the viewer, so each reads a value one way.
"""

from __future__ import annotations

import json
from typing import Any

from . import safe_json

MAX_COUNT = 10**15  # larger token counts, latencies or statuses are not real: shown as unknown


def pretty(value: Any) -> str:
    """JSON for display; strings stay as they are."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(safe_json.bounded(value), indent=2, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return _repr(value)


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except (ValueError, RecursionError):
        return f"[{type(value).__name__} that cannot be shown]"


def loads_maybe(text: Any) -> Any:
    """Tool arguments arrive as JSON strings; keep the string when it is not JSON."""
    if not isinstance(text, str):
        return text
    try:
        return safe_json.loads(text) if text.strip() else {}
    except ValueError:
        return text


def as_int(value: Any) -> int | None:
    """An integer that can be counted with; anything else (or absurdly large) is unknown."""
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and -MAX_COUNT < value < MAX_COUNT
        else None
    )


def as_num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if -MAX_COUNT * 1e3 < number < MAX_COUNT * 1e3 else None


def opt_str(value: Any) -> str | None:
    """Names, ids, models and reasons: a string, or None for anything else that is empty."""
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else pretty(value)


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else pretty(value)


def add(*values: int | None) -> int | None:
    known = [v for v in values if isinstance(v, int)]
    return sum(known) if known else None
