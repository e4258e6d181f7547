"""`run_config.json`: what one run directory was asked to run. One schema for every command.

Written when the run starts (`finished_at: null`: the viewer shows "in progress") and again when
it ends. Secrets never reach it: the configuration goes through `config.redacted`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gaia2_runner import __version__
from gaia2_runner.config import RunConfig, redacted
from gaia2_runner.config.harnesses import get_harness
from gaia2_runner.output.agent_kind import agent_kind, command_given
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.layout import RUN_CONFIG_FILE


def run_record(
    config: RunConfig,
    *,
    command: str,
    run_index: int,
    pass_at: int,
    retry: bool,
    started_at: str,
    finished_at: str | None,
    scenarios: Iterable[tuple[str, str | None, Path]],
    shard: dict[str, Any] | None = None,
    image_id: str | None = None,
    environ: Mapping[str, str] | None = None,
    engine: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The document for one run directory; `scenarios` are (scenario_id, split, path) triples;
    `shard` (execution/shards.py plan_identity) when a shard wrote it; `image_id` the image the run
    is pinned to (execution/image_pin.py): what its containers run, whatever `image` names now;
    `engine` the engine they run on (EngineInfo.as_dict(): engine, version, api_version).
    `agent_kind` (output/agent_kind.py) also sees a GAIA2_AGENT_COMMAND the host passes on
    (`environ`, default os.environ), which the settings do not record."""
    listed = [{"scenario_id": sid, "split": split, "path": str(path)} for sid, split, path in scenarios]
    settings = redacted(config)
    custom = command_given(config.agent.env, os.environ if environ is None else environ)
    return {
        "runner_version": __version__,
        "command": command,
        "agent_kind": agent_kind(settings["agent"], custom_command=custom),
        "image": config.agent.image,
        "image_id": image_id,
        **({"engine": dict(engine)} if engine else {}),
        **({"harness": harness_record(config.agent.harness)} if config.agent.harness else {}),
        "run_index": run_index,
        "pass_at": pass_at,
        "retry": retry,
        "started_at": started_at,
        "finished_at": finished_at,
        "config": settings,
        "scenario_count": len(listed),
        "scenarios": listed,
        **({"shard": shard} if shard else {}),
    }


def harness_record(name: str) -> dict[str, Any]:
    """Which agent, from which package at which pinned version (config/harnesses.py)."""
    harness = get_harness(name)
    return {"name": harness.name, "package": harness.package, "version": harness.version}


def write_run_record(run_dir: Path, record: dict[str, Any]) -> Path:
    path = Path(run_dir) / RUN_CONFIG_FILE
    write_json_atomic(path, record)
    return path
