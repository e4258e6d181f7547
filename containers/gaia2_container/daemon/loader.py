"""Load a Gaia2 scenario file the way ARE's benchmark does, ready for an online-judged run."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import files_tree

from .. import places
from . import are_speedups
from .judge import JudgeTrace, attach_judge, install_guard

TRACE_VERSION = "are_simulation_v1"  # ARE's data_handler.models.TRACE_V1_VERSION


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
        raise ScenarioLoadError(
            f"{path}: scenario file missing (the runner copies it in before start)"
        ) from None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioLoadError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    return text


def noise_enabled() -> bool:
    return os.environ.get(contract.ENV_NOISE, "").strip().lower() in ("1", "true", "yes")


def check_format(path: Path, doc: Any) -> None:
    """What ARE's importer would refuse with a pydantic dump, said in one line (ARE's benchmark logs
    such a scenario and skips it; we fail the run)."""
    if not isinstance(doc, dict):
        raise ScenarioLoadError(f"{path}: a scenario is a JSON object, got {type(doc).__name__}")
    version = doc.get("version")
    if version is None:
        raise ScenarioLoadError(f'{path}: no `version` field: ARE\'s importer requires "{TRACE_VERSION}"')
    if version != TRACE_VERSION:
        raise ScenarioLoadError(
            f'{path}: unsupported version {str(version)[:60]!r}: ARE 1.2.0 reads only "{TRACE_VERSION}"'
        )


def check_files_data(path: Path, doc: dict[str, Any], root: Path) -> None:
    """A scenario whose Files tree names data that is not there would be served empty files."""
    try:
        needed = files_tree.data_files(doc)
    except files_tree.FileTreeError as exc:
        raise ScenarioLoadError(f"{path}: {exc}") from None
    missing = files_tree.missing_files(root, needed)
    if missing:
        raise ScenarioLoadError(files_tree.describe_missing(root, missing, len(needed)))


def load_scenario(path: Path, filesystem_root: Path | None = None) -> LoadedScenario:
    """Import and preprocess exactly as ARE's benchmark does with a judge (online validation).

    As `are.simulation.benchmark`: `JsonScenarioImporter.import_from_json_to_benchmark` with
    `APPS_TO_SKIP`, then `preprocess_scenario` with the judge, the benchmark's scenario duration
    (`get_scenario_duration`: 420 s for Time-tagged scenarios, else 1800 s, whatever the file says,
    `null` included) and, with noise on, the configs of `create_noise_configs`. Preprocessing runs
    the oracle once in ARE's oracle-mode Environment to get the expected event log, attaches a
    GraphPerEventJudge and turns user turns into judge-triggered conditions. Hints and tags are
    read by ARE's importer (tags pick the duration; hints are not shown to agents, as in ARE).
    """
    text = read_scenario_text(path)
    doc = json.loads(text)
    check_format(path, doc)
    root = filesystem_root or places.FILESYSTEM_PATH
    check_files_data(path, doc, root)
    prepare_are(root)
    from are.simulation.data_handler.importer import JsonScenarioImporter

    _check_demo_fs_path(root)
    try:
        scenario, _, _ = JsonScenarioImporter().import_from_json_to_benchmark(
            text, apps_to_skip=are_speedups.APPS_TO_SKIP, load_completed_events=False
        )
    except Exception as exc:  # noqa: BLE001 - ARE raises many kinds; the user needs one line
        raise ScenarioLoadError(f"{path}: ARE could not import the scenario: {_one_line(exc)}") from None
    try:
        trace = attach_judge(scenario, noise=noise_enabled())
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


def prepare_are(root: Path | None = None) -> None:
    """ARE set up as a load needs it: the Files app's root, our speed-ups and the judge's guard
    installed before ARE's apps are imported. Idempotent: load_scenario calls it, and a warm
    container (main.py) calls it with `preload` before its scenario is known."""
    # ARE reads DEMO_FS_PATH when it is first imported: the Files app's bytes come from the mount.
    os.environ["DEMO_FS_PATH"] = str((root or places.FILESYSTEM_PATH) / files_tree.DEMO_FS_DIR)
    are_speedups.install()
    install_guard()


def preload() -> None:
    """Import what loading a scenario imports (ARE's importer, apps, judge and oracle types: ~0.5 s
    of CPU), so that a warm container's load after its assignment is the load alone."""
    prepare_are()
    import are.simulation.apps  # noqa: F401  (every app class the importer may build)
    import are.simulation.data_handler.importer  # noqa: F401
    import are.simulation.scenarios.scenario_imported_from_json.utils  # noqa: F401
    import are.simulation.types  # noqa: F401
    import are.simulation.validation.configs  # noqa: F401


def _check_demo_fs_path(root: Path) -> None:
    from are.simulation.apps import sandbox_file_system

    if str(sandbox_file_system.DEMO_FS_PATH) != str(root / files_tree.DEMO_FS_DIR):
        raise ScenarioLoadError(
            f"internal: ARE was imported before DEMO_FS_PATH was set "
            f"({sandbox_file_system.DEMO_FS_PATH}): the Files app would not read {root}"
        )


def build_oracle_plan(scenario: Any) -> list[dict[str, Any]]:
    """Ground-truth agent actions with dependencies and delays, for the oracle runtime.

    Arguments come from ARE's own oracle run (placeholders already resolved, types already parsed).
    """
    from are.simulation.types import OracleEvent

    completed = {e.event_id: e for e in (getattr(scenario, "oracle_run_event_log", None) or [])}
    public = public_tool_names(scenario)
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
                # The name the agent sees: ARE's noise mode renames tools (tool_names_mapping).
                "tool": public.get(f"{app}__{function}", f"{app}__{function}"),
                "args": args,
                "dependencies": [d.event_id for d in event.dependencies],
                "relative_time": float(event.event_relative_time or 0.0),
                "oracle_time": oracle_time,
            }
        )
    return plan


def public_tool_names(scenario: Any) -> dict[str, str]:
    """`Instance__function` -> the name ARE gives the agent (`AppTool._public_name`), per instance."""
    names: dict[str, str] = {}
    for app in getattr(scenario, "apps", None) or []:
        for tool in app.get_tools():
            names[tool.name] = getattr(tool, "_public_name", None) or tool.name
    return names


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:400]}"
