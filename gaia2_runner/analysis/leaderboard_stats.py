"""A leaderboard entry's numbers in the terms of ARE's report (are/simulation/benchmark/
report_stats.py `calculate_statistics`): per capability and overall, success rate with its
standard deviation and standard error across the runs, pass@k, pass^k, macro and micro rates.

Computed here from the same definitions (ARE is not installed on the host), and checked against
ARE's own functions on the same rows by tests/e2e/test_leaderboard_e2e.py. One difference: a run
without a verdict (status `exception`: a provider or infrastructure fault) counts in no success
rate here, since such a fault is never the model's failure, whereas ARE's report counts an
exception as a failure (success 0). `leaderboard --hf-upload` refuses an entry with such runs
(analysis/leaderboard_complete.py), so a published number never depends on the difference.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import mean, stdev
from typing import Any

from gaia2_contract.constants import NO_ORACLE_EVENTS_ERROR
from gaia2_runner.output.leaderboard_phases import MINI

SUCCESS, FAILED, EXCEPTION, NO_VALIDATION = "success", "failed", "exception", "no_validation"


def no_validation(success: bool | None, reason: str) -> bool:
    """A run ARE counts as `no_validation`: no verdict because its scenario has nothing to judge
    against (no oracle events, as the hub's test split), not because something failed."""
    return success is None and reason == NO_ORACLE_EVENTS_ERROR


@dataclass(frozen=True)
class StatRow:
    """One run as ARE's report sees it."""

    phase: str
    config: str
    scenario_id: str
    run: int
    success: bool | None
    exception: bool = True  # success None: an infrastructure error (ARE's `exception`)
    duration: float | None = None

    @property
    def status(self) -> str:
        if self.success is not None:
            return SUCCESS if self.success else FAILED
        return EXCEPTION if self.exception else NO_VALIDATION

    @property
    def score(self) -> float | None:
        return None if self.success is None else float(self.success)


def _scores(rows: Iterable[StatRow]) -> list[float]:
    """The scores of the validated runs among `rows`, in order."""
    return [score for r in rows if (score := r.score) is not None]


def capability_key(config: str, phase: str) -> str:
    """ARE's key of a capability: the config, or `mini_<phase>` for mini (run in several phases)."""
    return f"{config}_{phase}" if config == MINI else config


def capability_label(config: str, phase: str) -> str:
    return f"{config} ({phase})" if config == MINI else config


def _counts(rows: list[StatRow]) -> dict[str, int]:
    statuses = [r.status for r in rows]
    return {
        "total_runs": len(rows),
        "validated_runs": sum(r.score is not None for r in rows),
        "success_runs": statuses.count(SUCCESS),
        "failed_runs": statuses.count(FAILED),
        "exception_runs": statuses.count(EXCEPTION),
        "no_validation_runs": statuses.count(NO_VALIDATION),
    }


def _spread(values: list[float]) -> tuple[float, float]:
    """(sample standard deviation, standard error) across run-level values; 0 for fewer than two."""
    if len(values) < 2:
        return 0.0, 0.0
    std = stdev(values)
    return std, std / math.sqrt(len(values))


def _rate(rows: list[StatRow]) -> dict[str, float]:
    validated = [r for r in rows if r.score is not None]
    if not validated:
        return {"success_rate": 0.0, "success_rate_std": 0.0, "success_rate_sem": 0.0}
    per_run = [
        100.0 * mean(_scores(r for r in validated if r.run == k)) for k in sorted({r.run for r in validated})
    ]
    std, sem = _spread(per_run)
    return {
        "success_rate": 100.0 * mean(_scores(validated)),
        "success_rate_std": std,
        "success_rate_sem": sem,
    }


def _pass_k(rows: list[StatRow]) -> dict[str, Any]:
    total = len({(r.scenario_id, r.phase) for r in rows})
    scores: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        if r.score is not None:
            scores.setdefault((r.scenario_id, r.phase), []).append(r.score)
    at_k = sum(mean(v) > 0.0 for v in scores.values())
    all_k = sum(mean(v) == 1.0 for v in scores.values())
    return {
        "pass_at_k": at_k,
        "pass_at_k_percent": at_k / total * 100 if total else 0.0,
        "pass_k": all_k,
        "pass_k_percent": all_k / total * 100 if total else 0.0,
        "total_scenarios": total,
    }


def _durations(rows: list[StatRow]) -> dict[str, float]:
    values = [r.duration for r in rows if r.duration is not None]
    return {
        "avg_run_duration": mean(values) if values else 0.0,
        "avg_run_duration_std": stdev(values) if len(values) > 1 else 0.0,
    }


def _cross_run(rows: list[StatRow], per_capability: dict[str, dict[str, Any]], kind: str) -> dict[str, float]:
    """Macro (capabilities weighted equally) or micro (by validated runs) rate, and its spread
    across the run-level rates."""
    validated = [r for r in rows if r.score is not None]
    if not validated:
        return {f"{kind}_success_rate": 0.0, f"{kind}_success_rate_std": 0.0, f"{kind}_success_rate_sem": 0.0}
    rates = [c["success_rate"] for c in per_capability.values()]
    if kind == "macro":
        overall = mean(rates) if rates else 0.0
    else:
        counts = [c["validated_runs"] for c in per_capability.values()]
        overall = sum(r * n for r, n in zip(rates, counts)) / sum(counts) if sum(counts) else 0.0
    groups = sorted({(r.config, r.phase) for r in validated})
    per_run = []
    for k in sorted({r.run for r in validated}):
        parts = [_scores(r for r in validated if r.run == k and (r.config, r.phase) == g) for g in groups]
        parts = [p for p in parts if p]
        if parts:
            scores = [100.0 * mean(p) for p in parts]
            per_run.append(
                mean(scores)
                if kind == "macro"
                else sum(s * len(p) for s, p in zip(scores, parts)) / sum(len(p) for p in parts)
            )
    std, sem = _spread(per_run)
    return {f"{kind}_success_rate": overall, f"{kind}_success_rate_std": std, f"{kind}_success_rate_sem": sem}


def calculate(rows: Iterable[StatRow]) -> dict[str, Any]:
    """{"per_capability": {key: stats}, "global": stats}, keys and values as ARE's calculate_statistics
    (job_duration aside: ARE's is one job's, ours are several invocations)."""
    rows = list(rows)
    per_capability: dict[str, dict[str, Any]] = {}
    for config, phase in sorted({(r.config, r.phase) for r in rows}):
        part = [r for r in rows if (r.config, r.phase) == (config, phase)]
        per_capability[capability_key(config, phase)] = {
            "capability": capability_label(config, phase),
            **_counts(part),
            **_rate(part),
            **_pass_k(part),
            **_durations(part),
        }
    overall = {
        **_counts(rows),
        **_pass_k(rows),
        **_cross_run(rows, per_capability, "macro"),
        **_cross_run(rows, per_capability, "micro"),
        **_durations(rows),
    }
    return {"per_capability": per_capability, "global": overall}
