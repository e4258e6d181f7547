"""Export an ARE scenario with ARE's own JsonScenarioExporter, fixed so ARE can read it back.

Shared by make_demo_scenarios.py and make_gaia2_corpus.py. Run with the Python that has ARE
(the runtime image's /opt/gaia2/venv), under PYTHONHASHSEED=0 (ARE seeds each app's RNG with
`hash()`).

Post-processing, kept to what ARE 1.2.0's JSON round trip needs
--------------------------------------------------------------
Oracle action arguments are stored by ARE as ``str(value)``, which the importer
(``Scenario._parse_parameter_value``) cannot always read back:

1. list/dict arguments come out as Python reprs (``['a@b.c']``, ``{'phone': '1'}``); the
   importer parses them with ``json.loads``. They are re-encoded as JSON.
2. arguments whose value is ``None`` come out as value ``"None"`` with type ``"NoneType"``, which
   the importer rejects ("Unsupported type NoneType"). They are written as value ``null`` / type
   ``null``, which the importer maps back to ``None``.

Determinism fixes (the exporter embeds run-dependent values):

3. ``metadata.annotation.date`` (export wall-clock time) is set to 0.0.
4. in file system app states, ``tmpdir`` (a random host temp path that the importer ignores) is
   removed and directory children are sorted by name (the exporter lists them in host directory
   order).

Action ids of ENV/USER events are derived from the (fixed) event ids instead of uuid4.
"""

from __future__ import annotations

import ast
import json
from typing import Any


def fix_arg(arg: dict) -> None:
    """Make one exported action argument readable by ARE's importer."""
    vtype, value = arg.get("value_type"), arg.get("value")
    if vtype == "NoneType":  # quirk 2
        arg["value"], arg["value_type"] = None, None
    elif vtype in ("list", "dict") and isinstance(value, str):  # quirk 1
        try:
            json.loads(value)
        except json.JSONDecodeError:
            arg["value"] = json.dumps(ast.literal_eval(value))


def sort_tree(node: dict) -> None:
    children = node.get("children")
    if isinstance(children, list):
        children.sort(key=lambda child: child.get("name", ""))
        for child in children:
            sort_tree(child)


def postprocess(data: dict) -> dict:
    for ev in data.get("events", []):
        for arg in (ev.get("action") or {}).get("args") or []:
            fix_arg(arg)
    annotation = data.get("metadata", {}).get("annotation")
    if annotation is not None:  # fix 3
        annotation["date"] = 0.0
    for app in data.get("apps", []):  # fix 4
        state = app.get("app_state")
        if isinstance(state, dict) and "files" in state:
            state.pop("tmpdir", None)
            sort_tree(state["files"])
    return data


def export_scenario(scenario: Any) -> dict:
    """Initialise `scenario`, export it with JsonScenarioExporter, return the fixed JSON document."""
    from are.simulation.data_handler.exporter import JsonScenarioExporter
    from are.simulation.environment import Environment, EnvironmentConfig
    from are.simulation.types import Event

    scenario.initialize()
    for ev in scenario.events:  # stable action ids for ENV/USER events (ARE defaults to uuid4)
        if isinstance(ev, Event) and ev.action is not None:
            ev.action.action_id = f"{ev.action.app_name}.{ev.action.function_name}-{ev.event_id}"
    env = Environment(EnvironmentConfig(oracle_mode=True, start_time=scenario.start_time))
    raw = JsonScenarioExporter().export_to_json(env=env, scenario=scenario, scenario_id=scenario.scenario_id)
    return postprocess(json.loads(raw))
