"""The terminal progress display: a run observer (execution/observer.py).

On a terminal: a live bar (done/total, pass/fail/error counts, elapsed, ETA) with one verdict line
per finished scenario printed above it (for `run` and `demo`, or every scenario at DEBUG; a run
without a verdict is always shown). Without one (CI, a pipe, TTY_INTERACTIVE=0), rich's live
display would print nothing until the end, so each event is one plain line instead, written as it
happens: `[3/9] PASS demo_cab_order 4.1s`, cut at the width like a terminal's (a pipe is 80 columns,
or COLUMNS; runner.log keeps the whole line); other messages fold at the width, nothing cut.

Every method is safe to call from worker threads (rich's Progress and Console have their locks).
"""

from __future__ import annotations

import threading
from typing import Any

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

from gaia2_runner.cli.display import VERDICT_STYLES
from gaia2_runner.execution.jobs import Job
from gaia2_runner.execution.observer import RunObserver
from gaia2_runner.output.runner_log import as_warning, job_label, verdict_line, verdict_word
from gaia2_runner.text import printable

PLAIN_REASON_CHARS = 300  # a CI log line: long enough to read the reason, short of a page
MAX_FAILED_LISTED = 30  # failed runs listed under the bar when it is done (the rest: results.jsonl)
BAR_WIDTH = 20  # the whole bar line then fits 80 columns


class DatasetProgress(RunObserver):
    """The live bar on a terminal, plain lines elsewhere; verdict lines for `per_scenario`."""

    def __init__(self, console: Console, verbose: bool = False, per_scenario: bool = False) -> None:
        self.console, self.verbose = console, verbose
        self.live = console.is_interactive
        self.per_scenario = per_scenario or verbose or not self.live
        self.counts = {"PASS": 0, "FAIL": 0, "ERROR": 0}
        self.total = 0
        self.failed: list[str] = []  # verdict lines of failed runs, listed once the bar is done
        self._lock = threading.Lock()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=BAR_WIDTH),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            disable=not self.live,
        )
        self.task: Any = None

    def __enter__(self) -> DatasetProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()  # also when the run ends in an exception

    def _counts(self) -> str:
        c = self.counts
        return f"[green]{c['PASS']} pass[/] [red]{c['FAIL']} fail[/] [yellow]{c['ERROR']} error[/]"

    def log(self, message: str | Text, style: str = "dim", *, cut: bool = False) -> None:
        """One line above the bar (terminal), or plain lines, flushed at once (rich flushes after
        each print); without a terminal a `cut` line ends at the width, others fold at it."""
        text = message if isinstance(message, Text) else Text(printable(message), style=style)
        if self.live:
            self.progress.console.print(text, no_wrap=True, overflow="ellipsis", crop=True)
        elif cut:
            self.console.print(text, no_wrap=True, overflow="ellipsis", crop=True)
        else:
            self.console.print(text, overflow="fold")

    def run_started(self, total: int, reused: int) -> None:
        note = f" ({reused} already done)" if reused else ""
        self.total = total
        self.task = self.progress.add_task(f"scenarios{note}", total=total, counts=self._counts())
        if self.live:
            self.progress.start()
        else:
            self.log(f"{total} runs to start{note}", style="")

    def scenario_started(self, job: Job) -> None:
        if self.verbose:
            self.log(f"start {job_label(job)}")

    def scenario_finished(self, job: Job, result: dict[str, Any]) -> None:
        word = verdict_word(result)
        with self._lock:
            self.counts[word] += 1
            done, counts = sum(self.counts.values()), self._counts()
        self.progress.update(self.task, advance=1, counts=counts)
        if word == "FAIL" and not self.per_scenario:
            with self._lock:
                self.failed.append(verdict_line(job_label(job), result, reason_limit=PLAIN_REASON_CHARS))
        if self.per_scenario or word == "ERROR":
            limit = None if self.live else PLAIN_REASON_CHARS  # a terminal line is cut at its width
            line = verdict_line(job_label(job), result, reason_limit=limit)
            text = Text(printable(f"[{done}/{self.total}] {line}"))
            start = len(f"[{done}/{self.total}] ")
            text.stylize(VERDICT_STYLES[word], start, start + len(word))
            self.log(text, cut=True)  # one line per run, as a terminal shows it

    def warning(self, message: str) -> None:
        self.log(as_warning(message), "yellow")

    def interrupted(self) -> None:
        self.log("interrupted: no new scenarios; stopping the running ones…", "yellow")

    def run_finished(self, outcome: Any) -> None:
        """Stop the bar; on a terminal without verdict lines, list the failed runs under it (their
        lines scrolled by unseen; runs without a verdict get the table that follows)."""
        self.progress.stop()
        if not self.failed:
            return
        shown = sorted(self.failed)
        self.console.print(Text(f"failed ({len(shown)} of {self.total}):", style="bold red"))
        for line in shown[:MAX_FAILED_LISTED]:
            self.console.print(Text(printable(line)), no_wrap=True, overflow="ellipsis", crop=True)
        if len(shown) > MAX_FAILED_LISTED:
            self.console.print(
                Text(f"… and {len(shown) - MAX_FAILED_LISTED} more (see results.jsonl)", style="dim")
            )
