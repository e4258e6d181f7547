"""Append-only events.jsonl writer: every tool call, scenario event, message and judgment."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...jsonable import json_text


class EventRecorder:
    """Thread-safe: tool calls arrive on HTTP threads while the monitor records scenario events."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._seq = 0
        # Fills in the simulated time of a record made without one (set once the clock runs).
        self.sim_clock: Callable[[], float | None] = lambda: None
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")

    def record(self, kind: str, sim_time: float | None, **fields: Any) -> int:
        with self._lock:
            if self._fh.closed:
                return -1
            seq = self._seq
            self._seq += 1
            if sim_time is None:
                sim_time = self.sim_clock()
            line = {
                "seq": seq,
                "kind": kind,
                "wall_time": round(time.time(), 3),
                "sim_time": sim_time,
                **fields,
            }
            self._fh.write(json_text(line) + "\n")  # never fails on the agent's text (jsonable.py)
            self._fh.flush()
            return seq

    def close(self) -> None:
        with self._lock:
            self._fh.close()
