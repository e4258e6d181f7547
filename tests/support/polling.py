"""Waiting in tests for something another process or thread makes true, with a deadline."""

from __future__ import annotations

import time
from collections.abc import Callable


def until(predicate: Callable[[], object], wait_s: float = 20.0, step_s: float = 0.05) -> bool:
    """True as soon as `predicate()` is; False once `wait_s` passed without it."""
    deadline = time.monotonic() + wait_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(step_s)
    return True
