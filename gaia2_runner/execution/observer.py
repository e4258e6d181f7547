"""How the engine reports progress: an observer interface with no-op defaults.

The terminal display (cli/) and the live viewer index are two observers; the engine knows
neither. Methods are called from worker threads, so implementations must be thread-safe. An
observer that raises never fails a run: `Observers` turns the error into a warning.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from gaia2_runner.text import one_line

if TYPE_CHECKING:
    from gaia2_runner.execution.jobs import Job
    from gaia2_runner.execution.outcome import DatasetOutcome


class RunObserver:
    """Subclass and override what you need."""

    def run_started(self, total: int, reused: int) -> None:
        """`total` runs will start now; `reused` already had a result."""

    def scenario_started(self, job: Job) -> None:
        """A worker picked up `job`."""

    def scenario_finished(self, job: Job, result: dict[str, Any]) -> None:
        """`job` ended with `result` (result.json content); it is already on disk."""

    def warning(self, message: str) -> None:
        """Something the user should see that does not stop the run."""

    def interrupted(self) -> None:
        """Ctrl-C: no new scenarios start; running ones are being stopped."""

    def run_finished(self, outcome: DatasetOutcome) -> None:
        """Every output file is written."""


class Observers(RunObserver):
    """Fan one event out to several observers, isolating their failures."""

    def __init__(self, observers: Iterable[object | None]) -> None:
        self.observers = [o for o in observers if o is not None]

    def _each(self, method: str, *args: Any) -> None:
        for observer in self.observers:
            hook = getattr(observer, method, None)  # observers may implement only some hooks
            if hook is None:
                continue
            try:
                hook(*args)
            except Exception as exc:  # noqa: BLE001 - a display problem must not cost a result
                if method != "warning":
                    self.warning(f"{type(observer).__name__}.{method} failed: {one_line(str(exc))}")

    def run_started(self, total: int, reused: int) -> None:
        self._each("run_started", total, reused)

    def scenario_started(self, job: Job) -> None:
        self._each("scenario_started", job)

    def scenario_finished(self, job: Job, result: dict[str, Any]) -> None:
        self._each("scenario_finished", job, result)

    def warning(self, message: str) -> None:
        self._each("warning", message)

    def interrupted(self) -> None:
        self._each("interrupted")

    def run_finished(self, outcome: DatasetOutcome) -> None:
        self._each("run_finished", outcome)
