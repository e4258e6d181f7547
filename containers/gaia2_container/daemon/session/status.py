"""The status document served at /status and mirrored to daemon_status.json (contract.STATUS_FILE)."""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from gaia2_contract.constants import FINAL_STATUSES


class StatusBoard:
    """Single owner of the status so HTTP readers never see a half-updated document."""

    def __init__(self, path: Path, scenario_id: str | None, runtime: str) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._doc: dict[str, Any] = {
            "scenario_id": scenario_id,
            "status": "starting",
            "runtime": runtime,
            "turn_number": 1,  # the turn the agent is in, from 1
            "nb_turns": None,
            "sim_time": None,
            "sim_start": None,  # simulated time when the scenario started (epoch seconds)
            "clock": None,  # real (ARE's loop, maybe sped up) or manual (the oracle moves it)
            "time_speed": None,
            "started_at": time.time(),
            "finished_at": None,
            "agent_actions": 0,
            "agent_exit_code": None,
            "turns": [],
            "judgment": None,
            "error": None,
            "provider": None,  # the model relay's account: counts, tokens, a configuration fault (provider/ledger.py)
        }
        self._write()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._doc)

    @property
    def is_final(self) -> bool:
        with self._lock:
            return self._doc["status"] in FINAL_STATUSES

    def update(self, **fields: Any) -> None:
        """Merge fields; once final, the status itself cannot change any more (first verdict wins)."""
        with self._lock:
            if self._doc["status"] in FINAL_STATUSES:
                fields.pop("status", None)
                fields.pop("judgment", None)
                fields.pop("error", None)
            self._doc.update(fields)
            if fields.get("status") in FINAL_STATUSES and self._doc["finished_at"] is None:
                self._doc["finished_at"] = time.time()
            self._write()

    def increment(self, name: str) -> None:
        """Count under the board's own lock (no copy of the whole document per tool call)."""
        with self._lock:
            self._doc[name] += 1
            self._write()

    def add_turn(self, turn: dict[str, Any]) -> None:
        with self._lock:
            self._doc["turns"].append(turn)
            self._write()

    def _write(self) -> None:
        tmp = self._path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._doc, indent=2, default=str), encoding="utf-8")
        os.replace(tmp, self._path)
