"""runner.log: what happened during each invocation, appended to the output directory.

The terminal forgets (CI scrollback, a closed window); this file keeps, per line and timestamped,
each run start, each scenario's start and verdict, warnings, Ctrl-C and the final summary line. It
is a run observer (execution/observer.py), duck-typed like viewer/refresh.py's IndexRefresher since
output/ sits below execution/. It writes result fields execution/ already scrubbed, never the
container environment, and passes every line through the run's Scrubber as a last guard.

The one-line wording of a verdict and of a whole run lives here too, so the terminal
(cli/progress.py, cli/launch.py) and this file say the same thing.
"""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gaia2_runner import __version__
from gaia2_runner.output.layout import RUNNER_LOG_FILE
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.text import one_line, printable

VERDICT_WORDS = {True: "PASS", False: "FAIL"}
# How a job that stopped launching runs is summed up (execution/job_limits.py's stop kinds).
STOP_WORDS = {"cost_limit": "stopped at cost limit", "configuration_fault": "STOPPED: configuration fault"}


def job_label(job: Any) -> str:
    """`split/scenario (run k)`: the split only when there is one, the run only under pass_at k."""
    ref = job.ref
    label = f"{ref.split}/{ref.scenario_id}" if ref.split else str(ref.scenario_id)
    return f"{label} (run {job.run_index})" if Path(job.run_dir).name.startswith("run_") else label


def verdict_word(record: dict[str, Any]) -> str:
    """PASS, FAIL, or ERROR for a run without a verdict."""
    return VERDICT_WORDS.get(record.get("success"), "ERROR")  # type: ignore[arg-type]


def result_reason(record: dict[str, Any]) -> str:
    """The error, else the first failure reason; infra statuses other than `error` are named."""
    reasons = record.get("failure_reasons") or []
    reason = record.get("error") or (reasons[0] if reasons and record.get("success") is not True else "")
    status = record.get("status")
    if record.get("success") is None and status not in ("error", None):
        reason = f"{status}: {reason}" if reason else str(status)
    return one_line(str(reason), limit=10_000)


def duration_s(record: dict[str, Any]) -> float | None:
    value = (record.get("timings") or {}).get("total_s")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def verdict_line(
    label: str, record: dict[str, Any], reason_limit: int | None = None, with_status: bool = False
) -> str:
    """`PASS demo_cab_order 4.1s`, `FAIL name 5.3s: reason`, `ERROR name 7.0s: status: why`;
    `with_status` adds the result's status after the duration (`[status completed]`)."""
    seconds = duration_s(record)
    line = f"{verdict_word(record)} {label}" + ("" if seconds is None else f" {seconds:.1f}s")
    if with_status:
        line += f" [status {record.get('status')}]"
    reason = result_reason(record)
    if reason:
        line += f": {reason if reason_limit is None else one_line(reason, reason_limit)}"
    return line


def as_warning(message: str) -> str:
    """`warning: …`, once: some engine warnings already start with the word."""
    return message if message.lower().startswith("warning") else f"warning: {message}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


RESULTS_SEPARATOR = " · results: "  # before the output directory, the summary line's last part


def summary_line(outcome: Any) -> str:
    """The whole run in one line (engine.dataset_run.DatasetOutcome, duck-typed), e.g.
    `9 runs: 9 pass, 0 fail, 0 error · success 100.0% · complete · 23.2 s · results: out/demo`."""
    records, summary = outcome.records, outcome.summary
    words = [verdict_word(r) for r in records]
    expected = summary.expected_runs
    runs = (
        f"{len(records)} runs" if expected in (None, len(records)) else f"{len(records)} of {expected} runs"
    )
    state = "interrupted" if outcome.interrupted else "complete" if summary.complete else "INCOMPLETE"
    stopped = getattr(outcome, "stopped", None) or {}
    if not outcome.interrupted and stopped.get("kind") in STOP_WORDS:
        state = STOP_WORDS[stopped["kind"]]
    parts = [
        f"{runs}: {words.count('PASS')} pass, {words.count('FAIL')} fail, {words.count('ERROR')} error",
        f"success {_pct(summary.overall.success_rate.value)}",
        state,
    ]
    if summary.job_duration_s is not None:
        parts.append(f"{summary.job_duration_s:.1f} s")
    return " · ".join(parts) + f"{RESULTS_SEPARATOR}{outcome.output_dir}"


class RunnerLog:
    """Appends timestamped lines to `<output>/runner.log`; safe from worker threads.

    Opens the file per line (no descriptor outlives a line; a concurrent reader sees whole lines).
    When the file cannot be written it says so once (the observer fan-out makes it a warning) and
    stays quiet after that, so a full disk does not repeat the warning for every scenario."""

    def __init__(self, output_dir: Path, command: str, scrub: Scrubber | None = None) -> None:
        self.path = Path(output_dir) / RUNNER_LOG_FILE
        self.command, self.scrub = command, scrub or Scrubber()
        self._lock = threading.Lock()
        self._broken = False

    def write(self, message: str) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        line = f"{stamp} {printable(self.scrub.text(one_line(message, limit=10_000)))}\n"  # safe to `tail -f`
        with self._lock:
            if self._broken:
                return
            try:
                with open(self.path, "a", encoding="utf-8") as handle:
                    handle.write(line)
            except OSError as exc:
                self._broken = True
                raise OSError(f"{self.path} not written: {exc.strerror or exc}") from None

    def run_started(self, total: int, reused: int) -> None:
        self.write(
            f"run started: gaia2-runner {__version__} {self.command}, {total} runs to start, "
            f"{reused} already done (pid {os.getpid()})"
        )

    def scenario_started(self, job: Any) -> None:
        self.write(f"start {job_label(job)}")

    def scenario_finished(self, job: Any, result: dict[str, Any]) -> None:
        self.write(verdict_line(job_label(job), result, with_status=True))

    def warning(self, message: str) -> None:
        self.write(as_warning(message))

    def interrupted(self) -> None:
        self.write("interrupted: no new scenarios; stopping the running ones")

    def run_finished(self, outcome: Any) -> None:
        self.write(f"run finished: {summary_line(outcome)}")
