"""What a dataset run shows on the terminal: a live progress bar, then the runs without a verdict.

Kept apart from the executor so the executor stays about scheduling; every method here is safe to
call from worker threads (rich's Progress has its own lock).
"""

from __future__ import annotations

import threading
from typing import Any

from gaia2_runner.resume import Job
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

MAX_ERROR_ROWS = 30


def job_label(job: Job) -> str:
    label = f"{job.ref.split}/{job.ref.scenario_id}" if job.ref.split else job.ref.scenario_id
    return f"{label} (run {job.run_index})" if job.run_dir.name.startswith("run_") else label


class DatasetProgress:
    """done/total bar with pass/fail/error counts and an ETA; errors are logged above it."""

    def __init__(self, console: Console, total: int, reused: int, verbose: bool = False) -> None:
        self.console, self.verbose = console, verbose
        self.counts = {"pass": 0, "fail": 0, "error": 0}
        self._lock = threading.Lock()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=console, transient=False,
        )
        note = f" ({reused} already done)" if reused else ""
        self.task = self.progress.add_task(f"scenarios{note}", total=total, counts=self._counts())

    def __enter__(self) -> "DatasetProgress":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def _counts(self) -> str:
        c = self.counts
        return f"[green]{c['pass']} pass[/] [red]{c['fail']} fail[/] [yellow]{c['error']} error[/]"

    def log(self, message: str, style: str = "dim") -> None:
        self.progress.console.print(Text(message, style=style), soft_wrap=True)

    def started(self, job: Job) -> None:
        if self.verbose:
            self.log(f"start {job_label(job)}")

    def finished(self, job: Job, result: dict[str, Any]) -> None:
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


def errors_table(records: list[dict[str, Any]]) -> Table | None:
    """The runs that ended without a verdict, so the user knows what --retry would rerun."""
    rows = [r for r in records if r.get("success") is None]
    if not rows:
        return None
    table = Table(title=f"runs without a verdict ({len(rows)}): rerun them with --retry")
    for name in ("split", "scenario", "run", "status", "reason"):
        table.add_column(name, overflow="fold", max_width=70 if name == "reason" else None)
    for r in rows[:MAX_ERROR_ROWS]:
        table.add_row(r.get("split") or "-", str(r.get("scenario_id")), str(r.get("run_index", 1)),
                      str(r.get("status")), Text(str(r.get("error") or "")))
    if len(rows) > MAX_ERROR_ROWS:
        table.caption = f"… and {len(rows) - MAX_ERROR_ROWS} more (see results.jsonl)"
    return table
