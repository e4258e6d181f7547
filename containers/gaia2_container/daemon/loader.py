"""Load a Gaia2 scenario file the way ARE's benchmark does, ready for an online-judged run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import are_speedups
from .judge_engine import build_judge_engine
from .judge_trace import JudgeTrace


class ScenarioLoadError(Exception):
    """The scenario cannot be run; the message is one line meant for the user."""


@dataclass
class LoadedScenario:
    scenario: Any
    judge: Any | None
    scenario_id: str
    oracle_plan: list[dict[str, Any]]
    judge_trace: JudgeTrace | None = None


def read_scenario_text(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioLoadError(f"{path}: scenario file missing (the runner copies it in before start)") from None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioLoadError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    return text


def load_scenario(path: Path) -> LoadedScenario:
    """Import with ARE's JsonScenarioImporter and preprocess as ARE's benchmark does with a judge.

    `preprocess_scenario` runs the oracle once in ARE's oracle-mode Environment to get the expected
    event log, attaches a GraphPerEventJudge and turns user turns into judge-triggered conditions.
    """
    text = read_scenario_text(path)
    are_speedups.install()
    from are.simulation.data_handler.importer import JsonScenarioImporter
    from are.simulation.scenarios.scenario_imported_from_json.utils import preprocess_scenario
    from are.simulation.validation.configs import GraphPerEventJudgeConfig

    try:
        scenario, _, _ = JsonScenarioImporter().import_from_json_to_benchmark(text, load_completed_events=False)
    except Exception as exc:  # noqa: BLE001 - ARE raises many kinds; the user needs one line
        raise ScenarioLoadError(f"{path}: ARE could not import the scenario: {_one_line(exc)}") from None
    trace = JudgeTrace()  # observes every step of ARE's judge (failure diff); never changes a decision
    try:
        preprocess_scenario(scenario, judge_config=GraphPerEventJudgeConfig(engine=build_judge_engine(), tracer=trace))
    except Exception as exc:  # noqa: BLE001
        raise ScenarioLoadError(
            f"{path}: ARE rejected the scenario while preparing it (oracle run / turns): {_one_line(exc)}"
        ) from None
    judge = getattr(scenario, "judge", None)
    return LoadedScenario(
        scenario=scenario,
        judge=judge,
        scenario_id=str(scenario.scenario_id),
        oracle_plan=build_oracle_plan(scenario),
        judge_trace=trace,
    )


def build_oracle_plan(scenario: Any) -> list[dict[str, Any]]:
    """Ground-truth agent actions with dependencies and delays, for the oracle runtime.

    Arguments come from ARE's own oracle run (placeholders already resolved, types already parsed).
    """
    from are.simulation.types import OracleEvent

    completed = {e.event_id: e for e in (getattr(scenario, "oracle_run_event_log", None) or [])}
    plan = []
    for event in scenario.events:
        if not isinstance(event, OracleEvent):
            continue
        done = completed.get(event.event_id)
        desc = event.action_desc
        if done is not None and getattr(done, "action", None) is not None:
            args = {k: v for k, v in done.get_args().items() if k != "self"}
            app = desc.app if desc is not None else getattr(done.action.app, "name", done.action.class_name)
            function = done.action.function_name
            oracle_time = done.event_time
        elif desc is not None:
            args = {a["name"]: a.get("value") for a in desc.args}
            app, function, oracle_time = desc.app, desc.function, None
        else:
            continue
        plan.append(
            {
                "event_id": event.event_id,
                "app": app,
                "function": function,
                "tool": f"{app}__{function}",
                "args": args,
                "dependencies": [d.event_id for d in event.dependencies],
                "relative_time": float(event.event_relative_time or 0.0),
                "oracle_time": oracle_time,
            }
        )
    return plan


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:400]}"
