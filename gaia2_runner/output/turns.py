"""Turn numbers, counted from 1 in everything the runner writes (`turn_number`, `failed_turn_number`).

Every value comes from files an agent may have touched: anything but a plain positive integer is
no turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TURN_KEY = "turn_number"  # turns[] entries, judgment / agent_message / judge_detail events, /messages
FAILED_TURN_KEY = "failed_turn_number"  # in `judgment`


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def turn_number(doc: Any, key: str = TURN_KEY) -> int | None:
    """The turn number (from 1) `doc` holds under `key`."""
    return _count(doc.get(key)) if isinstance(doc, Mapping) else None


def failed_turn_number(judgment: Any) -> int | None:
    """The first rejected turn of a judgment, from 1."""
    return turn_number(judgment, FAILED_TURN_KEY)


def current_turn_number(status: Any) -> int | None:
    """The turn a run is in (daemon_status.json), from 1."""
    return turn_number(status)
