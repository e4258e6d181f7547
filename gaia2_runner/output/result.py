"""The per-scenario verdict and its `result.json`.

result.json is the one file downstream tooling reads, so it is written atomically (a reader never
sees half a file) and on every path where a container was started, including crashes and Ctrl-C.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from gaia2_contract.constants import FINAL_STATUSES, JUDGED_STATUSES
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.layout import result_path
from gaia2_runner.output.provider_account import sanitize as sanitize_account
from gaia2_runner.output.provider_account import sanitize_fault
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.output.turns import turn_number
from gaia2_runner.text import now_iso, one_line

# What result.json may say: FINAL_STATUSES, or one the runner decides, all without a verdict: crashed
# (the container died), interrupted (Ctrl-C), unresponsive (no final status within the time limit).


@dataclass
class Timings:
    """Seconds spent in each phase; None when the phase was never reached."""

    start_s: float | None = None
    ready_s: float | None = None
    run_s: float | None = None
    collect_s: float | None = None
    total_s: float | None = None


@dataclass
class ScenarioResult:
    """Everything the runner knows about one scenario run."""

    scenario_id: str
    success: bool | None = None
    status: str = "error"
    error: str | None = None  # why there is no verdict (set only when success is None)
    note: str | None = None  # how a judged run ended when not normally (agent exit, time limit)
    artifacts_lost: bool = False  # the output could not be collected (engine outage): --retry reruns it
    failure_reasons: list[str] = field(default_factory=list)
    judgment: dict[str, Any] | None = None
    agent_actions: int = 0
    # Simulated time (epoch seconds, ARE's clock): when the scenario started and ended, and how much
    # simulated time the run took (wall time is in timings).
    sim_start: float | None = None
    sim_end: float | None = None
    sim_elapsed: float | None = None
    # Simulated generation time (--sim-generation-time): the daemon's `mode` and what it did: model
    # calls that held the clock, wall seconds held, simulated seconds charged for them.
    sim_generation_time: dict[str, Any] | None = None
    turns: list[dict[str, Any]] = field(default_factory=list)
    timings: Timings = field(default_factory=Timings)
    # The model relay's account: calls by outcome, tokens per model, a configuration fault
    # (output/provider_account.py); None without a relay (the oracle).
    provider: dict[str, Any] | None = None
    # Agent2Agent (--a2a-app-prop): `app_prop` and the `apps` that became expert agents (ARE's seeded
    # choice), and the expert relay's account of the sub-agents' provider (as `provider`).
    a2a: dict[str, Any] | None = None
    a2a_provider: dict[str, Any] | None = None
    # The judge's provider refused the runner's own probe too: a configuration fault that stops the
    # job as the agent's does (output/provider_account.py); None otherwise.
    judge_fault: dict[str, Any] | None = None
    image: str | None = None
    runtime: str | None = None
    container_id: str | None = None
    warm_start: bool = False  # the container was a warm spare, given this scenario after it started
    started_at: str | None = None
    finished_at: str | None = None
    output_dir: Path | None = None  # where the artifacts went; not part of result.json

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("output_dir")
        return data

    def reason(self) -> str:
        """One line for tables: the error, else the first failure reason, else empty."""
        if self.error:
            return self.error
        return self.failure_reasons[0] if self.failure_reasons else ""

    def apply_status(self, doc: dict[str, Any]) -> None:
        """Fold a daemon status document into the result and map it to a verdict.

        completed, agent_exit, timeout → judgment.success (judged on what the agent did, as ARE
        does); failed → False; error → None (no verdict: an infrastructure failure).
        """
        status = doc.get("status")
        self.judgment = doc.get("judgment") if isinstance(doc.get("judgment"), dict) else None
        self.turns = [t for t in doc.get("turns") or [] if isinstance(t, dict)]
        actions = doc.get("agent_actions")
        self.agent_actions = actions if isinstance(actions, int) and not isinstance(actions, bool) else 0
        if isinstance(status, str) and status in FINAL_STATUSES:
            self.status = status
        self._apply_sim_times(doc)
        self.sim_generation_time = _generation_account(doc.get("sim_generation_time"))
        daemon_error = one_line(str(doc["error"])) if doc.get("error") else None
        self.provider = sanitize_account(doc.get("provider")) or self.provider
        self.a2a = _a2a_choice(doc.get("a2a"))
        self.a2a_provider = sanitize_account(doc.get("a2a_provider")) or self.a2a_provider
        self.judge_fault = sanitize_fault(doc.get("judge_fault")) if status == "error" else None
        if status == "failed":
            self.success = False
            self.note = daemon_error  # e.g. the agent's own note (agent_note.txt): not an error
        elif status in JUDGED_STATUSES:
            verdict = (self.judgment or {}).get("success")
            self.success = verdict if isinstance(verdict, bool) else None
            self.note = daemon_error  # e.g. the agent's exit code and what it said: not an error
            if self.success is None:
                self.error = f"daemon reported {status} without a judgment"
        elif status == "error":
            self.success = None
            self.error = daemon_error or "the daemon reported an error without saying why"
        self.failure_reasons = failure_reasons(doc)

    def _apply_sim_times(self, doc: dict[str, Any]) -> None:
        start, end = _number(doc.get("sim_start")), _number(doc.get("sim_time"))
        self.sim_start, self.sim_end = start, end
        self.sim_elapsed = round(end - start, 3) if start is not None and end is not None else None

    def finish(self) -> None:
        self.finished_at = now_iso()

    def redact(self, scrub: Scrubber) -> None:
        """Scrub every field of secret values: errors, rationales and turns come from the container."""
        for f in fields(self):
            if f.name not in ("timings", "output_dir"):
                setattr(self, f.name, scrub.value(getattr(self, f.name)))


def _generation_account(value: Any) -> dict[str, Any] | None:
    """The daemon's simulated generation account, its known fields only (untrusted input)."""
    if not isinstance(value, dict) or not isinstance(value.get("mode"), str):
        return None
    account: dict[str, Any] = {"mode": one_line(value["mode"])[:40]}
    for key in ("calls_held", "held_s", "advanced_s"):
        account[key] = _number(value.get(key))
    if account["calls_held"] is not None:
        account["calls_held"] = int(account["calls_held"])
    return account


def _a2a_choice(value: Any) -> dict[str, Any] | None:
    """The daemon's Agent2Agent record, its known fields only (untrusted input)."""
    if not isinstance(value, dict) or _number(value.get("app_prop")) is None:
        return None
    apps = value.get("apps")
    if not isinstance(apps, list):
        apps = []
    return {"app_prop": _number(value["app_prop"]), "apps": [one_line(str(a))[:100] for a in apps[:50]]}


def _number(value: Any) -> float | None:
    """A finite number from the container's document, else None (it is untrusted input)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def failure_reasons(doc: dict[str, Any]) -> list[str]:
    """Why a run did not pass, first line first: per failed turn (numbered from 1) the one-line
    diff the daemon derived from ARE's judge (`send_email.recipients: expected …, got …`), else
    ARE's rationale; then the judgment's rationale; then the daemon error."""
    reasons: list[str] = []
    for turn in doc.get("turns") or []:
        if isinstance(turn, dict) and turn.get("success") is False:
            why = one_line(str(turn.get("reason") or turn.get("rationale") or "no rationale given"))
            reasons.append(f"turn {turn_number(turn) or '?'}: {why}")
    judgment = doc.get("judgment")
    if isinstance(judgment, dict) and judgment.get("success") is False:
        rationale = one_line(str(judgment.get("rationale") or ""))
        if rationale and not any(rationale in r for r in reasons):
            reasons.append(rationale)
    if doc.get("error"):
        reasons.append(one_line(str(doc["error"])))
    return reasons


def write_result(result: ScenarioResult, directory: Path) -> Path:
    """Write `directory/result.json` atomically and return its path."""
    path = result_path(directory)
    write_json_atomic(path, result.to_dict())
    return path
