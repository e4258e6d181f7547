"""ARE's own trace dump of a finished run (its JsonScenarioExporter, the "hf" format that
`are-benchmark --trace_dump_format hf` writes): the scenario, every completed event and the
verdict. `gaia2-runner judge` re-judges from it offline and `export --format are` ships it.

Written after the agent has stopped, into the output directory the agent cannot read (it holds
the ground truth)."""

from __future__ import annotations

import gzip
import json
import logging
import os
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract

log = logging.getLogger("gaia2.are_dump")


def with_source_events(text: str, scenario: Any) -> str:
    """ARE's trace with the scenario's events as its file gave them (ARE's importer keeps them,
    untouched, as `serialized_events`), instead of the graph the run left behind.

    Preparing a judged run, ARE rewires each later turn to hang on a condition event (its turn
    trigger, re-scheduled as `-CHECK_k` copies while it waits) and, in noise mode, adds its random
    ENV events. ARE's importer cannot read that graph back (the condition needs execution metadata
    a judged run never has; the added events break its rules on turn order), so ARE's offline judge
    could not re-judge a multi-turn or noise run. From the file's graph it prepares the scenario
    again, as `are-benchmark judge` does (noise configs again when the trace says noise was on)."""
    source = getattr(scenario, "serialized_events", None)
    if not source:
        return text
    doc = json.loads(text)
    doc["events"] = [event.model_dump(mode="json") for event in source]
    return json.dumps(doc)


def write_are_trace(session: Any, runtime: str, path: Path) -> bool:
    """False (and a log line) when ARE's exporter fails: the verdict never depends on the dump."""
    from are.simulation.data_handler.exporter import JsonScenarioExporter
    from are.simulation.scenarios.scenario import ScenarioStatus

    judgment = (session.verdict or {}).get("judgment") or {}
    decision = None
    if judgment.get("success") is not None:
        decision = (ScenarioStatus.Valid if judgment["success"] else ScenarioStatus.Invalid).value
    try:
        text = JsonScenarioExporter().export_to_json(
            session.env,
            session.scenario,
            session.scenario.scenario_id,
            model_id=os.environ.get(contract.ENV_AGENT_MODEL) or runtime,
            agent_id=runtime,
            validation_decision=decision,
            export_apps=True,
        )
        text = with_source_events(text, session.scenario)
        with gzip.open(
            path, "wt", encoding="utf-8", compresslevel=6
        ) as fh:  # ~10x smaller; a universe is 2.5 MB
            fh.write(text)
        return True
    except Exception:  # noqa: BLE001 - the run is judged already; a missing dump is only logged
        log.exception("ARE's exporter could not write the trace dump")
        return False
