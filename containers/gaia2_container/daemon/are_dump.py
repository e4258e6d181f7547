"""ARE's own trace dump of a finished run (its JsonScenarioExporter, the "hf" format that
`are-benchmark --trace_dump_format hf` writes): the scenario, every completed event and the
verdict. `gaia2-runner judge` re-judges from it offline and `export --format are` ships it.

Written after the agent has stopped, into the output directory the agent cannot read (it holds
the ground truth)."""

from __future__ import annotations

import gzip
import logging
import os
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract

log = logging.getLogger("gaia2.are_dump")


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
            session.env, session.scenario, session.scenario.scenario_id,
            model_id=os.environ.get(contract.ENV_AGENT_MODEL) or runtime, agent_id=runtime,
            validation_decision=decision, export_apps=True)
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as fh:  # ~10x smaller; a universe is 2.5 MB
            fh.write(text)
        return True
    except Exception:  # noqa: BLE001 - the run is judged already; a missing dump is only logged
        log.exception("ARE's exporter could not write the trace dump")
        return False
