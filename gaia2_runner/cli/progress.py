"""The terminal progress display: a run observer (engine/observer.py) drawing a live bar.

Every method is safe to call from worker threads (rich's Progress has its own lock).
"""

from __future__ import annotations

import threading
from typing import Any

from gaia2_runner.engine.jobs import Job
from gaia2_runner.engine.observer import RunObserver
from gaia2_runner.text import printable
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

def job_label(job: Job) -> str:
    label = f"{job.ref.split}/{job.ref.scenario_id}" if job.ref.split else job.ref.scenario_id
    return f"{label} (run {job.run_index})" if job.run_dir.name.startswith("run_") else label


class DatasetProgress(RunObserver):
    """done/total bar with pass/fail/error counts and an ETA; errors are logged above it."""

    def __init__(self, console: Console, verbose: bool = False) -> None:
        self.console, self.verbose = console, verbose
        self.counts = {"pass": 0, "fail": 0, "error": 0}
        self._lock = threading.Lock()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=console, transient=False,
        )
        self.task: Any = None

    def __enter__(self) -> "DatasetProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()  # also when the run ends in an exception

    def _counts(self) -> str:
        c = self.counts
        return f"[green]{c['pass']} pass[/] [red]{c['fail']} fail[/] [yellow]{c['error']} error[/]"

    def log(self, message: str, style: str = "dim") -> None:
        self.progress.console.print(Text(printable(message), style=style), soft_wrap=True)

    def run_started(self, total: int, reused: int) -> None:
        note = f" ({reused} already done)" if reused else ""
        self.task = self.progress.add_task(f"scenarios{note}", total=total, counts=self._counts())
        self.progress.start()

    def scenario_started(self, job: Job) -> None:
        if self.verbose:
            self.log(f"start {job_label(job)}")

    def scenario_finished(self, job: Job, result: dict[str, Any]) -> None:
        success = result.get("success")
        key = {True: "pass", False: "fail"}.get(success, "error")
        with self._lock:
            self.counts[key] += 1
            counts = self._counts()
        self.progress.update(self.task, advance=1, counts=counts)
        if key == "error":
            self.log(f"error {job_label(job)}: {result.get('status')}: {result.get('error') or ''}",
                     style="yellow")
        elif self.verbose:
            self.log(f"{key} {job_label(job)}")

    def warning(self, message: str) -> None:
        self.log(message, "yellow")

    def interrupted(self) -> None:
        self.log("interrupted: no new scenarios; stopping the running ones…", "yellow")

    def run_finished(self, outcome: Any) -> None:
        self.progress.stop()
