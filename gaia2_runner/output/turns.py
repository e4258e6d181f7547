"""Turn numbers, counted from 1 in everything the runner writes (`turn_number`, `failed_turn_number`).

Outputs of runners before that counted from 0 under other keys (`turn`, `failed_turn`,
`turn_index`); the readers here give both as numbers from 1, so the viewer, the reports and the
exports read older runs too. Every value comes from files an agent may have touched: anything
but a plain non-negative integer is no turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TURN_KEY = "turn_number"  # turns[] entries, judgment / agent_message / judge_detail events, /messages
FAILED_TURN_KEY = "failed_turn_number"  # in `judgment`
LEGACY_KEYS = {TURN_KEY: "turn", FAILED_TURN_KEY: "failed_turn"}  # the same, counted from 0
LEGACY_CURRENT_KEY = "turn_index"  # daemon_status.json: the turn in progress, from 0


def _count(value: Any, low: int) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= low else None


def turn_number(doc: Any, key: str = TURN_KEY) -> int | None:
    """The turn number (from 1) `doc` holds under `key`, or under the older 0-based key."""
    if not isinstance(doc, Mapping):
        return None
    number = _count(doc.get(key), 1)
    if number is not None:
        return number
    legacy = _count(doc.get(LEGACY_KEYS[key]), 0)
    return None if legacy is None else legacy + 1


def failed_turn_number(judgment: Any) -> int | None:
    """The first rejected turn of a judgment, from 1."""
    return turn_number(judgment, FAILED_TURN_KEY)


def current_turn_number(status: Any) -> int | None:
    """The turn a run is in (daemon_status.json), from 1."""
    if not isinstance(status, Mapping):
        return None
    number, legacy = _count(status.get(TURN_KEY), 1), _count(status.get(LEGACY_CURRENT_KEY), 0)
    return number if number is not None else None if legacy is None else legacy + 1
