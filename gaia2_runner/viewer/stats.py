"""Live counts for the index, computed from rows so they are right while a run is in progress."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gaia2_runner.output.read.record import RunRecord
from gaia2_runner.output.runner_log import STOP_WORDS
from gaia2_runner.output.summary import NO_SPREAD, Rate


@dataclass
class Counts:
    scenarios: int = 0
    runs: int = 0
    by_status: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("pass", "fail", "error", "running", "pending"), 0)
    )
    pass_at_k: int = 0
    pass_hat_k: int = 0
    duration_sum: float = 0.0
    duration_n: int = 0
    tokens: int = 0

    @property
    def verdicts(self) -> int:
        return self.by_status["pass"] + self.by_status["fail"]

    @property
    def finished(self) -> int:
        return self.verdicts + self.by_status["error"]

    @property
    def success_rate(self) -> float | None:
        """The headline, as ARE counts: pass over every finished run (an error counts as a failure)."""
        return self.by_status["pass"] / self.finished if self.finished else None

    @property
    def verdict_rate(self) -> float | None:
        """Pass over runs with a verdict: shown second, only when some run has none."""
        return self.by_status["pass"] / self.verdicts if self.verdicts else None

    @property
    def avg_duration(self) -> float | None:
        return self.duration_sum / self.duration_n if self.duration_n else None


def grouped(rows: list[RunRecord]) -> dict[tuple[str, str], list[RunRecord]]:
    """Rows of the same scenario (split, directory name) across run_1 … run_k."""
    groups: dict[tuple[str, str], list[RunRecord]] = {}
    for row in rows:
        groups.setdefault((row.split or "", row.name), []).append(row)
    for runs in groups.values():
        runs.sort(key=lambda r: r.layout_run or 0)
    return groups


def counts(groups: dict[tuple[str, str], list[RunRecord]], k: int) -> dict[str, Counts]:
    """Per split, plus "overall" when there is more than one split."""
    out: dict[str, Counts] = {}
    for (split, _), runs in sorted(groups.items()):
        for name in {split or "default", "overall"}:
            c = out.setdefault(name, Counts())
            c.scenarios += 1
            c.pass_at_k += any(r.status == "pass" for r in runs)
            c.pass_hat_k += sum(r.status == "pass" for r in runs) >= k
            for r in runs:
                c.runs += 1
                c.by_status[r.status] += 1
                if isinstance(r.wall_s, (int, float)):
                    c.duration_sum += r.wall_s
                    c.duration_n += 1
                c.tokens += r.tokens or 0
    if len(out) == 2:
        out.pop("overall")
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "overall", kv[0])))


def incomplete_note(tallies: dict[str, Counts]) -> str:
    """Why the headline rate is not final yet ("" when every run has a verdict)."""
    total = tallies.get("overall") or next(iter(tallies.values()), None)
    if total is None:
        return ""
    parts = [
        f"{n} {label}"
        for n, label in (
            (total.by_status["error"], "without a verdict"),
            (total.by_status["running"], "running"),
            (total.by_status["pending"], "pending"),
        )
        if n
    ]
    return ", ".join(parts)


def stopped_note(summary: Any) -> str:
    """How the job stopped launching runs, from summary.json ("" when it did not)."""
    stopped = summary.get("stopped") if isinstance(summary, dict) else None
    kind = stopped.get("kind") if isinstance(stopped, dict) else None
    return STOP_WORDS.get(kind, "") if isinstance(kind, str) else ""


def summary_rows(summary: Any) -> list[dict[str, Any]]:
    """summary.json (the executor's report) flattened for a table; [] when absent or unexpected."""
    if not isinstance(summary, dict):
        return []
    rows = []
    splits = summary.get("splits")
    groups = dict(splits) if isinstance(splits, dict) else {}
    if isinstance(summary.get("overall"), dict) and len(groups) != 1:
        groups["overall"] = summary["overall"]
    for name, stats in list(groups.items())[:100]:
        if not isinstance(stats, dict):
            continue
        rate = stats.get("success_rate")
        if not isinstance(rate, dict):
            rate = {}
        verdicts = stats.get("success_rate_verdicts_only")
        verdicts = verdicts if isinstance(verdicts, dict) else {}
        spread = _has_spread(rate, summary.get("pass_at"))
        rows.append(
            {
                "name": name,
                "scenarios": stats.get("scenarios"),
                "runs": stats.get("runs"),
                "rate": rate.get("value"),
                "se": rate.get("se") if spread else None,
                "no_spread": "" if spread else NO_SPREAD,
                "verdict_rate": verdicts.get("value"),
                "pass_at_k": stats.get("pass_at_k_rate"),
                "pass_hat_k": stats.get("pass_hat_k_rate"),
                "infra": stats.get("infra_errors"),
                "duration": stats.get("avg_run_duration_s"),
            }
        )
    return rows


def _has_spread(rate: dict[str, Any], pass_at: Any) -> bool:
    """Rate.has_spread on summary.json's rate (two or more repetitions had runs); a summary without
    per-run rates has spread when it was planned with k > 1, or (no k either) when its SE is not 0."""
    per_run = rate.get("per_run")
    if isinstance(per_run, list):
        return Rate(per_run=per_run).has_spread
    if isinstance(pass_at, int) and not isinstance(pass_at, bool):
        return pass_at > 1
    se = rate.get("se")
    return isinstance(se, (int, float)) and not isinstance(se, bool) and se > 0


def table_rows(groups: dict[tuple[str, str], list[RunRecord]], runs: list[int]) -> list[dict[str, Any]]:
    """One index line per scenario, aggregated over its runs (done here: jinja filters are slow)."""
    out = []
    for _, group in sorted(groups.items()):
        by_run = {r.layout_run: r for r in group}
        durations = [r.wall_s for r in group if isinstance(r.wall_s, (int, float))]
        tokens = [r.tokens for r in group if r.tokens is not None]
        actions = [r.actions for r in group if r.actions is not None]
        out.append(
            {
                "first": group[0],
                "cells": [by_run.get(run) for run in runs],
                "statuses": " ".join(sorted({r.status for r in group})),
                "passed": sum(r.status == "pass" for r in group),
                "duration": sum(durations) / len(durations) if durations else None,
                "actions": sum(actions) if actions else None,
                "calls": sum(r.llm_calls for r in group),
                "tokens": sum(tokens) if tokens else None,
                "tool_errors": sum(r.tool_errors for r in group),
                "cost": sum(costs)
                if (costs := [r.cost_usd for r in group if r.cost_usd is not None])
                else None,
                "reason": next((r.reason for r in group if r.reason), ""),
            }
        )
    return out


TURN_PREFIX = re.compile(r"^turn \d+: ")
MAX_REASON_GROUPS, MAX_EXAMPLES = 20, 5


def reason_groups(rows: list[RunRecord]) -> list[dict[str, Any]]:
    """Failed and errored runs grouped by their one-line reason (the turn number left out), most
    frequent first, with a few example runs each."""
    groups: dict[str, list[RunRecord]] = {}
    for row in rows:
        if row.status in ("fail", "error") and row.reason:
            groups.setdefault(TURN_PREFIX.sub("", row.reason), []).append(row)
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [
        {"reason": reason, "count": len(members), "examples": members[:MAX_EXAMPLES]}
        for reason, members in ordered[:MAX_REASON_GROUPS]
    ]
