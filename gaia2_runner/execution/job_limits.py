"""When a job starts fewer runs, or none: the scheduler's rules beyond "one slot, one run".

- Adaptive concurrency (throttle.py) from the relays' live counts, read from each run's status.
- A configuration fault (the relay saw the provider refuse the runner's key, model or
  parameters): the job stops at once. Every later run would fail the same way, and none of it
  may be scored as the model's failure: runs in flight end as infrastructure errors, the rest
  never start, and after fixing the configuration `--retry` runs them.
- A cost limit (--cost-limit USD): once the finished runs of the job (earlier invocations' too)
  cost that much at the price table's rates, no further run starts; what ran is kept and the
  summary says "stopped at cost limit".
- A run's calls to a model the price table cannot price make the job's cost unknown, never $0
  for them: under a cost limit the job stops as at the limit (the spend can no longer be
  bounded), naming the model; the summary's `cost_usd` is then null and `cost_unpriced_models`
  names them. Config load refuses an unpriced agent or expert model up front
  (config/load.py validate_budgets), so this is a model the agent chose itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gaia2_runner.execution.jobs import Job, read_result
from gaia2_runner.execution.throttle import AdaptiveConcurrency
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.provider_account import configuration_fault, pressure, run_cost, unpriced_models
from gaia2_runner.text import one_line

CONFIGURATION_FAULT = "configuration_fault"
COST_LIMIT = "cost_limit"


@dataclass(frozen=True)
class Stop:
    """Why the job stopped launching runs."""

    kind: str  # CONFIGURATION_FAULT or COST_LIMIT
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "reason": self.reason}


class JobLimits:
    """Shared by the scheduler's workers; every method is thread-safe."""

    def __init__(
        self,
        concurrency: int,
        cost_limit: float | None = None,
        finished: Iterable[dict[str, Any]] = (),
        throttle: AdaptiveConcurrency | None = None,
    ) -> None:
        self.throttle = throttle or AdaptiveConcurrency(concurrency)
        self.cost_limit = cost_limit
        self.spent = 0.0
        self.unpriced: set[str] = set()  # models called that the price table cannot price
        for record in finished:
            self._add_cost(record)
        self.stop: Stop | None = None
        self._seen: dict[Any, int] = {}  # job -> pressure signals already counted
        self._lock = threading.Lock()
        self._check_cost()

    @property
    def halted(self) -> bool:
        """Stopped by a configuration fault: runs in flight end too."""
        return self.stop is not None and self.stop.kind == CONFIGURATION_FAULT

    def admits(self, in_flight: int) -> bool:
        """Whether another run may start now."""
        return self.stop is None and self.throttle.admits(in_flight)

    def status_seen(self, job: Any, doc: dict[str, Any]) -> str | None:
        """A run's live status: new pressure signals go to the throttle (what changed, else None)."""
        total = pressure(doc.get("provider")) + pressure(doc.get("a2a_provider"))
        with self._lock:
            new, self._seen[job] = total - self._seen.get(job, 0), max(total, self._seen.get(job, 0))
        return self.throttle.pressure(new)

    def run_finished(self, job: Any, record: dict[str, Any]) -> Stop | None:
        """Account a finished run (result.json content); the Stop it causes, if it is the first."""
        with self._lock:
            self._seen.pop(job, None)
            self._add_cost(record)
            first = self.stop is None
            fault = configuration_fault(record)
            if fault and first:
                self.stop = Stop(CONFIGURATION_FAULT, f"configuration fault: {fault}")
            elif first:
                self._check_cost()
            return self.stop if first and self.stop is not None else None

    def tick(self) -> str | None:
        return self.throttle.tick()

    def _add_cost(self, record: dict[str, Any]) -> None:
        if (cost := run_cost(record)) is not None:
            self.spent += cost
        self.unpriced.update(unpriced_models(record))

    def _check_cost(self) -> None:
        if self.cost_limit is None or self.stop is not None:
            return
        if self.unpriced:
            self.stop = Stop(
                COST_LIMIT,
                one_line(
                    "stopped at cost limit: the job's cost is unknown, so the "
                    f"${self.cost_limit:g} limit (--cost-limit) can no longer be kept: runs called "
                    f"{_names(self.unpriced)}, which the price table cannot price "
                    f"(${self.spent:.4f} for the priced calls); add a price to a file named by GAIA2_PRICES "
                    "(layout of gaia2_runner/pricing/prices.toml), then rerun"
                ),
            )
        elif self.spent >= self.cost_limit:
            self.stop = Stop(
                COST_LIMIT,
                f"stopped at cost limit: the finished runs cost ${self.spent:.4f} "
                f"of the ${self.cost_limit:g} allowed (--cost-limit)",
            )

    def summary(self) -> dict[str, Any]:
        """For summary.json: the stop, the cost so far, the lowest concurrency the job ran at."""
        return {
            "stopped": None if self.stop is None else self.stop.to_dict(),
            "cost_usd": None if self.unpriced else round(self.spent, 6),
            "cost_unpriced_models": sorted(self.unpriced),
            "cost_limit_usd": self.cost_limit,
            "lowest_concurrency": self.throttle.lowest,
            "concurrency": self.throttle.maximum,
        }


def _names(models: set[str], shown: int = 3) -> str:
    """A few model names for a message (the names come from the container: repr escapes them)."""
    names = ", ".join(repr(name[:80]) for name in sorted(models)[:shown])
    return names + (f" and {len(models) - shown} more" if len(models) > shown else "")


def mark_stopped(job: Job, limits: JobLimits) -> dict[str, Any] | None:
    """Rewrite the result.json of a run cut short by another run's configuration fault as an
    infrastructure error saying so (its artifacts so far stay), never a verdict: `--retry` runs it
    again. Returns the new content (None when there is no result to rewrite)."""
    data = read_result(job)
    if data is None or limits.stop is None:
        return None
    data.update(
        status="error",
        success=None,
        error=one_line(f"stopped: another run of the job found a {limits.stop.reason}"),
    )
    write_json_atomic(job.result_path, data)
    return data


def on_stop_message(stop: Stop) -> str:
    """The one line the job's log and terminal get when it stops launching."""
    if stop.kind == CONFIGURATION_FAULT:
        return (
            f"{stop.reason}: no further scenarios start, the running ones end as infrastructure errors; "
            "fix the configuration, then rerun with --retry"
        )
    return f"{stop.reason}: no further scenarios start; the running ones finish"
