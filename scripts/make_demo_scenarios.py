#!/usr/bin/env python3
"""Generate the small Gaia2-style demo scenarios shipped in examples/scenarios/.

Run with the Python that has Meta's ARE installed
(``meta-agents-research-environments==1.2.0``, import name ``are``)::

    /tmp/arevenv/bin/python scripts/make_demo_scenarios.py [OUT_DIR]

OUT_DIR defaults to ``examples/scenarios`` next to this script's parent.

How the files are made
----------------------
Every scenario is an ARE ``Scenario`` subclass: ``init_and_populate_apps``
builds the apps (only Gaia2 apps from ``are.simulation.apps.ALL_APPS``) with
fixed ids, and ``build_events_flow`` declares the events in capture mode: the
first user message is a ``send_message_to_agent`` call turned into a USER
event, environment events are ENV events with exactly one predecessor, and
the expected agent behaviour is a chain of ``.oracle()`` events, each turn
ending with ``AgentUserInterface.send_message_to_user``. The scenario is then
written with ARE's own ``JsonScenarioExporter``.

Post-processing (kept to what ARE 1.2.0's JSON round trip needs)
----------------------------------------------------------------
Oracle action arguments are stored by ARE as ``str(value)``, which the
importer (``Scenario._parse_parameter_value``) cannot always read back:

1. list/dict arguments come out as Python reprs (``['a@b.c']``,
   ``{'phone': '1'}``); the importer parses them with ``json.loads``. They
   are re-encoded as JSON.
2. arguments whose value is ``None`` come out as value ``"None"`` with type
   ``"NoneType"``, which the importer rejects ("Unsupported type
   NoneType"). They are written as value ``null`` / type ``null``, which the
   importer maps back to ``None``.

Determinism fixes (the exporter embeds run-dependent values):

3. ``metadata.annotation.date`` (export wall-clock time) is set to 0.0.
4. in file system app states, ``tmpdir`` (a random host temp path that the
   importer ignores) is removed and directory children are sorted by name
   (the exporter lists them in host directory order).

Event ids are set explicitly with ``.with_id`` and action ids are derived
from them, so that reruns give byte-identical files. Python's string hashing
is pinned (``PYTHONHASHSEED=0``, the script re-executes itself if needed)
because ARE derives per-app RNG seeds from ``hash()``.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

from are.simulation.data_handler.exporter import JsonScenarioExporter  # noqa: E402
from are.simulation.environment import Environment, EnvironmentConfig  # noqa: E402
from are.simulation.types import Event  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from demo_scenario_defs import SINGLE_TURN, DemoScenario  # noqa: E402
from demo_scenarios_dynamic import DYNAMIC  # noqa: E402

SCENARIOS: list[type[DemoScenario]] = [*SINGLE_TURN, *DYNAMIC]

# --------------------------------------------------------------------------
# Export + post-processing
# --------------------------------------------------------------------------


def _fix_arg(arg: dict) -> None:
    """Make one exported action argument readable by ARE's importer."""
    vtype, value = arg.get("value_type"), arg.get("value")
    if vtype == "NoneType":  # quirk 2
        arg["value"], arg["value_type"] = None, None
    elif vtype in ("list", "dict") and isinstance(value, str):  # quirk 1
        try:
            json.loads(value)
        except json.JSONDecodeError:
            arg["value"] = json.dumps(ast.literal_eval(value))


def _sort_tree(node: dict) -> None:
    children = node.get("children")
    if isinstance(children, list):
        children.sort(key=lambda child: child.get("name", ""))
        for child in children:
            _sort_tree(child)


def postprocess(data: dict) -> dict:
    for ev in data.get("events", []):
        for arg in (ev.get("action") or {}).get("args") or []:
            _fix_arg(arg)
    annotation = data.get("metadata", {}).get("annotation")
    if annotation is not None:  # fix 3
        annotation["date"] = 0.0
    for app in data.get("apps", []):  # fix 4
        state = app.get("app_state")
        if isinstance(state, dict) and "files" in state:
            state.pop("tmpdir", None)
            _sort_tree(state["files"])
    return data


def build_and_export(cls: type[DemoScenario]) -> tuple[DemoScenario, dict]:
    scenario = cls()
    scenario.initialize()
    # Stable action ids for ENV/USER events (ARE defaults to uuid4).
    for ev in scenario.events:
        if isinstance(ev, Event) and ev.action is not None:
            ev.action.action_id = f"{ev.action.app_name}.{ev.action.function_name}-{ev.event_id}"
    env = Environment(EnvironmentConfig(oracle_mode=True, start_time=scenario.start_time))
    raw = JsonScenarioExporter().export_to_json(
        env=env, scenario=scenario, scenario_id=scenario.scenario_id
    )
    return scenario, postprocess(json.loads(raw))


def main() -> int:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parent.parent / "examples" / "scenarios"
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    for cls in SCENARIOS:
        scenario, data = build_and_export(cls)
        path = out_dir / f"{scenario.scenario_id}.json"
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
