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

Post-processing
---------------
``are_export.export_scenario`` (shared with make_gaia2_corpus.py) exports with ARE's exporter and
fixes what ARE 1.2.0's JSON round trip and determinism need; see its docstring.

Event ids are set explicitly with ``.with_id`` and action ids are derived
from them, so that reruns give byte-identical files. Python's string hashing
is pinned (``PYTHONHASHSEED=0``, the script re-executes itself if needed)
because ARE derives per-app RNG seeds from ``hash()``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

from are_export import export_scenario  # noqa: E402
from demo_scenario_defs import SINGLE_TURN, DemoScenario  # noqa: E402
from demo_scenarios_dynamic import DYNAMIC  # noqa: E402

SCENARIOS: list[type[DemoScenario]] = [*SINGLE_TURN, *DYNAMIC]


def main() -> int:
    out_dir = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else (Path(__file__).resolve().parent.parent / "examples" / "scenarios")
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    for cls in SCENARIOS:
        scenario = cls()
        data = export_scenario(scenario)
        path = out_dir / f"{scenario.scenario_id}.json"
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
