"""What a dataset run returns: the records it left and why it stopped, with the exit code they mean.

Its own module so the observer interface can name it without importing the run loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.execution.job_limits import CONFIGURATION_FAULT
from gaia2_runner.exit_codes import EXIT_INTERRUPTED, EXIT_NO_VERDICT, EXIT_OK, EXIT_USAGE
from gaia2_runner.output.summary import Summary


@dataclass
class DatasetOutcome:
    """What a run left behind: one record per (scenario, repetition) that has a result."""

    output_dir: Path
    run_dirs: list[Path]
    records: list[dict[str, Any]]
    summary: Summary
    ran: int
    reused: int
    interrupted: bool = False
    noise: bool = False  # ARE's noise mode was on (the report says so)
    stopped: dict[str, str] | None = None  # why the job stopped launching runs (execution/job_limits.py)

    @property
    def exit_code(self) -> int:
        """Interrupted after Ctrl-C, usage after a configuration fault (fix it, then --retry), no
        verdict when some run has none (infra error or no result), else ok (exit_codes.py)."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.stopped and self.stopped.get("kind") == CONFIGURATION_FAULT:
            return EXIT_USAGE
        return EXIT_NO_VERDICT if self.summary.infra_errors or self.summary.missing_runs else EXIT_OK
