"""Benchmark statistics from result records, as ARE's report defines them, plus summary.json.

Pure functions over results.jsonl-style dicts (result.json + split + run_index), so the numbers can
be recomputed from any output tree.

Definitions (k = pass_at, the number of repetitions):
- success rate (the headline, ARE's convention): for each repetition i, successes_i / runs_i where
  every run counts (a run without a verdict counts as a failure); the value is the mean of those k
  rates, STD their sample standard deviation (n-1), SE = STD / sqrt(k).
- infrastructure errors (success null) are counted in `infra_errors` and make the run set
  incomplete (`complete: false`, as do missing runs); `success_rate_verdicts_only` gives the same
  statistics over runs with a verdict only, shown second.
- pass@k: scenarios with at least one success among their k runs; pass^k: scenarios whose k runs
  all succeeded (a missing or null run is not a success). Both over all unique scenarios.
- macro rate: mean of the split success rates (STD/SE from the per-repetition means of split
  rates); micro rate: the success rate over every run of every split.
- run duration: mean and sample STD of timings.total_s over all runs that have one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gaia2_runner.output.atomic import write_json_atomic

NO_SPLIT = "default"  # group name for scenarios that were not given a split
RATE_POLICY = (
    "success_rate counts every run, as ARE does (a run without a verdict counts as a "
    "failure); success_rate_verdicts_only leaves runs with success null (infra_errors) out; "
    "a run set with infra errors or missing runs is incomplete"
)


NO_SPREAD = "k = 1: no spread"  # said instead of a `± 0.0%` that measures nothing (Rate.has_spread)


@dataclass
class Rate:
    """A rate measured once per repetition: mean, sample STD across repetitions, SE = STD/sqrt(n)."""

    value: float | None = None
    std: float | None = None
    se: float | None = None
    per_run: list[float | None] = field(default_factory=list)

    @property
    def has_spread(self) -> bool:
        """Whether STD and SE measure anything: at least two repetitions had runs (with k = 1 they
        are 0 by definition, not a measurement, and are never shown as `± 0.0%`)."""
        return sum(v is not None for v in self.per_run) > 1


@dataclass
class GroupStats:
    """Statistics for one split, or for everything."""

    scenarios: int = 0
    runs: int = 0
    verdict_runs: int = 0
    successes: int = 0
    infra_errors: int = 0
    success_rate: Rate = field(default_factory=Rate)
    success_rate_verdicts_only: Rate = field(default_factory=Rate)
    pass_at_k: int = 0
    pass_at_k_rate: float | None = None
    pass_hat_k: int = 0
    pass_hat_k_rate: float | None = None
    avg_run_duration_s: float | None = None
    run_duration_std_s: float | None = None


@dataclass
class Summary:
    pass_at: int
    splits: dict[str, GroupStats]
    overall: GroupStats
    macro: Rate
    micro: Rate
    job_duration_s: float | None = None
    expected_runs: int | None = None
    rate_policy: str = RATE_POLICY

    @property
    def infra_errors(self) -> int:
        return self.overall.infra_errors

    @property
    def missing_runs(self) -> int:
        return max(0, (self.expected_runs or 0) - self.overall.runs)

    @property
    def complete(self) -> bool:
        """Every planned run has a verdict: only then is the headline rate final."""
        return self.infra_errors == 0 and self.missing_runs == 0

    def to_dict(self) -> dict[str, Any]:
        data = _rounded(asdict(self))
        data["missing_runs"] = self.missing_runs
        data["complete"] = self.complete
        return data


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def sample_std(values: list[float]) -> float | None:
    """Standard deviation with n-1 (ARE's report); 0 for a single value, None for none."""
    if not values:
        return None
    if len(values) == 1:
        return 0.0
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


# Two-sided 95% quantiles of Student's t for 1 … 30 degrees of freedom (standard tables); beyond,
# the Cornish-Fisher series in `t_95` is within 0.001 of them.
_T95 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)
Z95 = 1.959964


def t_95(df: int) -> float:
    """The factor of a 95% interval, mean ± t_95(n - 1) · SE, for a mean of n values."""
    if df < 1:
        raise ValueError("a 95% interval needs at least two values")
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def rate_over_runs(per_run: list[float | None]) -> Rate:
    values = [v for v in per_run if v is not None]
    std = sample_std(values)
    se = None if std is None else std / math.sqrt(len(values))
    return Rate(mean(values), std, se, per_run)


def split_name(record: dict[str, Any]) -> str:
    return record.get("split") or NO_SPLIT


def group_stats(records: list[dict[str, Any]], pass_at: int) -> GroupStats:
    stats = GroupStats(runs=len(records))
    by_scenario: dict[tuple[str, str], list[bool | None]] = {}
    per_run: list[float | None] = []
    per_run_verdicts: list[float | None] = []
    for index in range(1, pass_at + 1):
        runs = [r.get("success") is True for r in records if _run_index(r) == index]
        per_run.append(sum(runs) / len(runs) if runs else None)
        verdicts = [
            r["success"] for r in records if _run_index(r) == index and isinstance(r.get("success"), bool)
        ]
        per_run_verdicts.append(sum(verdicts) / len(verdicts) if verdicts else None)
    for record in records:
        success = record.get("success")
        success = success if isinstance(success, bool) else None
        by_scenario.setdefault((split_name(record), str(record.get("scenario_id"))), []).append(success)
        if success is None:
            stats.infra_errors += 1
        else:
            stats.verdict_runs += 1
            stats.successes += int(success)
    stats.scenarios = len(by_scenario)
    stats.success_rate = rate_over_runs(per_run)
    stats.success_rate_verdicts_only = rate_over_runs(per_run_verdicts)
    stats.pass_at_k = sum(1 for runs in by_scenario.values() if any(s is True for s in runs))
    stats.pass_hat_k = sum(1 for runs in by_scenario.values() if sum(s is True for s in runs) >= pass_at)
    if stats.scenarios:
        stats.pass_at_k_rate = stats.pass_at_k / stats.scenarios
        stats.pass_hat_k_rate = stats.pass_hat_k / stats.scenarios
    durations = [d for d in (_duration(r) for r in records) if d is not None]
    stats.avg_run_duration_s = mean(durations)
    stats.run_duration_std_s = sample_std(durations)
    return stats


def summarize(
    records: Iterable[dict[str, Any]],
    pass_at: int = 1,
    job_duration_s: float | None = None,
    expected_runs: int | None = None,
) -> Summary:
    """Per-split and overall statistics for `records` (one per scenario run)."""
    records = list(records)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        grouped.setdefault(split_name(record), []).append(record)
    splits = {name: group_stats(rows, pass_at) for name, rows in sorted(grouped.items())}
    overall = group_stats(records, pass_at)
    macro_per_run = [
        mean([v for s in splits.values() if (v := s.success_rate.per_run[i]) is not None])
        for i in range(pass_at)
    ]
    macro = rate_over_runs(macro_per_run)
    macro.value = mean([s.success_rate.value for s in splits.values() if s.success_rate.value is not None])
    return Summary(
        pass_at=pass_at,
        splits=splits,
        overall=overall,
        macro=macro,
        micro=overall.success_rate,
        job_duration_s=job_duration_s,
        expected_runs=expected_runs,
    )


def write_summary(summary: Summary, path: Path, extra: dict[str, Any] | None = None) -> Path:
    """summary.json: the statistics plus `extra` (model, image, … for whoever reads it later)."""
    write_json_atomic(path, {**(extra or {}), **summary.to_dict()})
    return path


def _run_index(record: dict[str, Any]) -> int:
    index = record.get("run_index")
    return index if isinstance(index, int) and not isinstance(index, bool) else 1


def _duration(record: dict[str, Any]) -> float | None:
    value = (record.get("timings") or {}).get("total_s")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value
