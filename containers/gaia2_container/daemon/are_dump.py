"""ARE's own trace dump of a finished run (its JsonScenarioExporter, the "hf" format that
`are-benchmark --trace_dump_format hf` writes): the scenario, every completed event and the
verdict. `gaia2-runner judge` re-judges from it offline and `export --format are` ships it.

Written after the agent has stopped, into the output directory the agent cannot read (it holds
the ground truth)."""

from __future__ import annotations

import gzip
import logging
import os
import re
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract

log = logging.getLogger("gaia2.are_dump")


def restore_turn_graph(scenario: Any) -> None:
    """Give the scenario back the event graph it was imported with, before ARE's exporter writes it.

    For a live, judged run ARE (`build_turn_trigger`) turns each later turn into a condition event
    (`condition_turn_N`) that the user's next message depends on instead of the agent's last answer
    of turn N-1, and re-schedules copies of it (`-CHECK_k`) while it waits. ARE's importer cannot
    read that graph back: the condition needs execution metadata ARE never saves for such a run, and
    its one-branch rule for user messages refuses a condition with no dependencies. Offline, ARE
    judges the scenario as imported (no trigger conditions: every turn is validated in order), so
    the trace keeps that graph: each dependency on a turn's condition goes back to the answer that
    ended the turn before, as in the scenario file. Called once the run is judged: nothing runs after.
    """
    from are.simulation.scenarios.utils.turn_conditions import is_send_message_to_user
    from are.simulation.types import ConditionCheckEvent

    turns = getattr(scenario, "event_id_to_turn_idx", None) or {}
    conditions = [e for e in scenario.events if isinstance(e, ConditionCheckEvent)]
    if not conditions or any(_turn_of(e) is None for e in conditions):
        return  # nothing of ARE's turn triggers here: the graph is the file's
    ends = {turns.get(e.event_id): e for e in scenario.events if is_send_message_to_user(e)}
    if any(ends.get(_turn_of(e) - 1) is None for e in conditions):
        return  # never seen; the dump is then ARE's as is (re-judging it fails with ARE's error)
    kept = [e for e in scenario.events if not isinstance(e, ConditionCheckEvent)]
    for event in kept:
        dependencies: list[Any] = []
        for dependency in event.dependencies:
            if isinstance(dependency, ConditionCheckEvent):
                dependency = ends[_turn_of(dependency) - 1]
            if all(dependency is not d for d in dependencies):
                dependencies.append(dependency)
        event.dependencies = dependencies
    scenario.events = kept


def _turn_of(condition: Any) -> int | None:
    """N of ARE's `condition_turn_N` (its copies are `condition_turn_N-CHECK_k`)."""
    match = re.match(r"condition_turn_(\d+)(-CHECK_\d+)?$", str(condition.event_id))
    return int(match.group(1)) if match else None


def write_are_trace(session: Any, runtime: str, path: Path) -> bool:
    """False (and a log line) when ARE's exporter fails: the verdict never depends on the dump."""
    from are.simulation.data_handler.exporter import JsonScenarioExporter
    from are.simulation.scenarios.scenario import ScenarioStatus

    judgment = (session.verdict or {}).get("judgment") or {}
    decision = None
    if judgment.get("success") is not None:
        decision = (ScenarioStatus.Valid if judgment["success"] else ScenarioStatus.Invalid).value
    try:
        restore_turn_graph(session.scenario)
        text = JsonScenarioExporter().export_to_json(
            session.env, session.scenario, session.scenario.scenario_id,
            model_id=os.environ.get(contract.ENV_AGENT_MODEL) or runtime, agent_id=runtime,
            validation_decision=decision, export_apps=True)
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as fh:  # ~10x smaller; a universe is 2.5 MB
            fh.write(text)
        return True
    except Exception:  # noqa: BLE001 - the run is judged already; a missing dump is only logged
        log.exception("ARE's exporter could not write the trace dump")
        return False
