"""Offline re-judging, as ARE's `are-benchmark judge` does it: import a run's ARE trace with its
completed events, prepare the scenario for offline validation, and let ARE's judge decide from
those events alone (no apps run, no agent). Run as `entrypoint rejudge`; writes REJUDGE_FILE.

The judge model comes from GAIA2_JUDGE_* like a live run's; ARE's judge is observed through its
tracer hook (daemon/judge/trace.py), so the new verdict has the same failure diff as a live one.
"""

from __future__ import annotations

import gzip
import json
import logging
import sys
from typing import Any

from gaia2_contract import constants as contract

from . import places
from .daemon import are_speedups
from .daemon.judge import attach_judge, clean_rationale, install_guard

log = logging.getLogger("gaia2.rejudge")


def rejudge(text: str) -> dict[str, Any]:
    are_speedups.install()
    install_guard()  # the same judge prompts as a live run
    from are.simulation.data_handler.importer import JsonScenarioImporter
    from are.simulation.environment import Environment
    from are.simulation.types import EventLog

    scenario, completed_events, _ = JsonScenarioImporter().import_from_json_to_benchmark(
        text, apps_to_skip=are_speedups.APPS_TO_SKIP, load_completed_events=True
    )
    # As ARE's preprocess_scenario_from_config with judge_only: its durations, and `--noise`'s
    # configs when the run had them (ARE's exporter says so in the trace's definition).
    trace = attach_judge(scenario, noise=_had_noise(text), offline=True)
    trace.take(), trace.calls.take()  # preparing is not judging
    # ARE's ScenarioRunner._judge: an environment that holds only the run's completed events.
    environment = Environment()
    environment.event_log = EventLog.from_list_view(completed_events)
    result = scenario.validate(environment)
    details = trace.take()
    reason = next((d["reason"] for d in details if d.get("reason")), "")
    outcome: dict[str, Any] = {
        "scenario_id": str(scenario.scenario_id),
        "success": result.success,
        "rationale": clean_rationale(result.rationale),
        "reason": reason,
        "judge_details": details,
        "judge_calls": trace.calls.take(),
        "error": None,
    }
    if result.exception is not None and result.success is not True:
        outcome.update(success=None, error=f"judge error: {result.exception}")
    return outcome


def _had_noise(text: str) -> bool:
    definition = (json.loads(text).get("metadata") or {}).get("definition") or {}
    return bool(definition.get("has_tool_augmentation") or definition.get("has_env_events_augmentation"))


def main() -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    path = places.INPUT_PATH / contract.ARE_TRACE_FILE
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            outcome = rejudge(fh.read())
    except Exception as exc:  # noqa: BLE001 - one line for the runner, whatever ARE raised
        outcome = {"success": None, "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}"}
    places.OUTPUT_PATH.mkdir(parents=True, exist_ok=True)
    (places.OUTPUT_PATH / contract.REJUDGE_FILE).write_text(
        json.dumps(outcome, default=str), encoding="utf-8"
    )
    return 0 if outcome.get("error") is None else 1
