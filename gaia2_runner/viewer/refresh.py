"""Keep a run's index.html current while results arrive: a run observer (execution/observer.py).

At most every few seconds and one thread at a time, and never at the cost of the run: an error
is re-raised to the engine's observer fan-out, which turns it into a warning.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from gaia2_runner.viewer import regenerate_index

REFRESH_EVERY_S = 5.0


class IndexRefresher:
    """Implements the `scenario_finished` and `run_finished` hooks of a run observer."""

    def __init__(self, output_dir: Path, every_s: float = REFRESH_EVERY_S) -> None:
        self.output_dir, self.every_s = Path(output_dir), every_s
        self._lock = threading.Lock()
        self._at = 0.0

    def refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._at < self.every_s:
            return
        if not self._lock.acquire(blocking=force):
            return  # another worker is redrawing right now
        try:
            self._at = now
            regenerate_index(self.output_dir)
        finally:
            self._lock.release()

    def scenario_finished(self, _job: Any, _result: dict[str, Any]) -> None:
        self.refresh()

    def run_finished(self, _outcome: Any) -> None:
        self.refresh(force=True)
