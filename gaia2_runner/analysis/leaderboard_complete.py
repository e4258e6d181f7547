"""Whether a leaderboard entry is whole: every run each phase planned has a verdict.

A number is published only for a whole entry: a run that is missing (never ran, or still going)
or has no verdict (a provider or infrastructure fault: never counted as the model's failure here,
so it is left out of the rates) would otherwise change the rates without anyone seeing it. The
expected runs are the ones each phase's run_config.json lists, times its runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gaia2_runner.analysis.leaderboard_stats import no_validation
from gaia2_runner.output import leaderboard_phases as phases
from gaia2_runner.output.read.record import load_runs
from gaia2_runner.output.read.run_files import first_run_config
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.verdicts import CURRENT
from gaia2_runner.output.summary import NO_SPLIT


@dataclass(frozen=True)
class PhaseCount:
    """One phase's runs: planned, with a verdict, finished without one, not finished at all."""

    phase: str
    expected: int = 0
    verdicted: int = 0
    no_verdict: int = 0
    missing: int = 0
    ran: bool = True  # False: the phase directory is absent

    @property
    def whole(self) -> bool:
        return self.ran and self.no_verdict == 0 and self.missing == 0

    def describe(self) -> str:
        if not self.ran:
            return f"{self.phase}: not run"
        return (
            f"{self.phase}: {self.verdicted} of {self.expected} runs verdicted, "
            f"{self.no_verdict} without a verdict, {self.missing} missing"
        )


def count_phase(phase: str, directory: Path, verdicts: str = CURRENT) -> PhaseCount:
    """Planned vs verdicted runs of one phase directory, by (config, scenario, run). A run ARE
    counts `no_validation` (nothing to judge it against) is done: no rerun would give it a verdict."""
    root = output_root(directory)
    run_config = first_run_config(root) or {}
    runs = run_config.get("pass_at")
    if not isinstance(runs, int):
        runs = 1
    expected = {
        (str(s.get("split") or NO_SPLIT), str(s.get("scenario_id")), k)
        for s in run_config.get("scenarios") or []
        if isinstance(s, dict)
        for k in range(1, max(runs, 1) + 1)
    }
    finished: dict[tuple[str, str, int], bool] = {}
    for row, data in load_runs(root, verdicts):  # keyed by where the run lies, as the list names it
        done = row.success is not None or no_validation(row.success, row.reason)
        finished[(str(data.ref.split or NO_SPLIT), data.ref.name, data.ref.run or 1)] = done
    expected |= set(finished)
    verdicted = sum(finished.values())
    return PhaseCount(
        phase, len(expected), verdicted, len(finished) - verdicted, len(expected) - len(finished)
    )


def count_phases(root: Path, verdicts: str = CURRENT) -> list[PhaseCount]:
    """Every phase of the entry in ARE's order, an absent one as not run."""
    present = dict(phases.phase_dirs(root))
    return [
        count_phase(name, present[name], verdicts) if name in present else PhaseCount(name, ran=False)
        for name in phases.PHASE_NAMES
    ]


def upload_refusal(counts: list[PhaseCount]) -> str | None:
    """Why the entry may not be uploaded (None: it is whole)."""
    broken = [c for c in counts if not c.whole]
    if not broken:
        return None
    no_verdict, missing = sum(c.no_verdict for c in broken), sum(c.missing for c in broken)
    absent = [c.phase for c in broken if not c.ran]
    parts = [f"{no_verdict} runs without a verdict, {missing} missing"]
    if absent:
        parts.append("phases not run: " + ", ".join(absent))
    named = ", ".join(c.phase for c in broken)
    return (
        f"--hf-upload: the entry is incomplete ({'; '.join(parts)}): rerun the leaderboard command "
        f"with --retry to finish {named}, then upload"
    )
