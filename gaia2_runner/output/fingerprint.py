"""What defines an output directory's results, so results of different setups are never mixed.

`fingerprint.json` at the output root records the image (its content id, not just the tag), the
runtime, the agent (provider, model, endpoint, options, extra variables as hashes), the judge,
the time limit, ARE's noise mode, the runner and the scenarios (id -> file digest). A rerun whose settings differ,
or that finds a scenario id whose file changed, is refused before any container starts; new
scenarios may join (a larger --limit, another split). API keys are not part of it: another key
for the same model does not change what is measured. The recorded image id is also the run's pin:
a resumed run keeps executing that image while it exists (execution/image_pin.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gaia2_contract import providers
from gaia2_contract.generation_time import OFF
from gaia2_runner import __version__
from gaia2_runner.config import RunConfig
from gaia2_runner.config.defaults import DEFAULT_TIME_SPEED
from gaia2_runner.config.engines import PODMAN
from gaia2_runner.config.schema import SETTINGS
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.layout import FINGERPRINT_FILE

SCHEMA = 1
SIM_GENERATION_KEY = "sim_generation_time"
# The engine the run's containers ran on, recorded only when not podman: every directory written
# before Docker was an engine ran on podman, and must still match a podman run.
ENGINE_KEY = "engine"
# A directory recorded without the setting ran with the clock on during model calls: as `off` does.
_OLD_CLOCK_HINT = "".join(
    f" (it ran as {s.flag} {OFF}: pass that to resume it)" for s in SETTINGS if s.name == SIM_GENERATION_KEY
)
_ENGINE_FLAG = next(s.flag for s in SETTINGS if s.name == ENGINE_KEY)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def fingerprint(
    config: RunConfig,
    *,
    image_id: str | None,
    runtime: str | None,
    scenarios: Iterable[tuple[str | None, str, str]],
    engine: str = PODMAN,
) -> dict[str, Any]:
    """The document; `scenarios` are (split, scenario_id, sha256) triples; `engine` the one the
    containers run on (image ids and container behaviour differ between engines)."""
    agent, judge = config.agent, config.judge
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "settings": {
            "runner_version": __version__,
            "image": agent.image,
            "image_id": image_id,
            "runtime": runtime,
            "provider": agent.provider,
            "model": agent.model,
            "base_url": agent.base_url,
            "agent_options": agent.options,
            # Values may be secrets: only a digest of each, enough to see that one changed.
            "agent_env": {name: _digest(value) for name, value in sorted(agent.env.items())},
            "judge_provider": judge.provider,
            "judge_model": judge.model,
            "judge_base_url": judge.base_url,
            "timeout": config.run.timeout,
            # Only when not ARE's real time (1), so directories written before the setting existed match.
            **({"time_speed": config.run.time_speed} if config.run.time_speed != DEFAULT_TIME_SPEED else {}),
            # A directory written before the setting existed ran with the clock on during model calls
            # ("off", recorded as absent), so resuming it under another mode refuses to mix the two; the
            # oracle calls no model, so it is not recorded for it.
            **(
                {SIM_GENERATION_KEY: config.run.sim_generation_time}
                if config.agent.provider != providers.ORACLE and config.run.sim_generation_time != OFF
                else {}
            ),
            **({ENGINE_KEY: engine} if engine != PODMAN else {}),
        },
        "scenarios": {f"{split or ''}/{sid}": digest for split, sid, digest in scenarios},
    }
    if config.run.noise:  # only when on, so directories written before the setting existed still match
        doc["settings"]["noise"] = True
    if config.agent.a2a_app_prop:  # Agent2Agent, likewise only when on: other apps, another model
        doc["settings"]["a2a"] = {
            "app_prop": config.agent.a2a_app_prop,
            "provider": config.agent.a2a_provider,
            "model": config.agent.a2a_model,
            "base_url": config.agent.a2a_base_url,
        }
    return doc


def read_fingerprint(output_dir: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads((Path(output_dir) / FINGERPRINT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def write_fingerprint(output_dir: Path, doc: dict[str, Any]) -> None:
    """Record `doc`, keeping scenarios recorded earlier (a resumed run may cover fewer)."""
    old = read_fingerprint(output_dir) or {}
    merged = {**doc, "scenarios": {**(old.get("scenarios") or {}), **doc["scenarios"]}}
    write_json_atomic(Path(output_dir) / FINGERPRINT_FILE, merged)


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs, one short phrase each ("model gpt-4o -> gpt-5", "scenario search/x changed")."""
    out: list[str] = []
    before, after = old.get("settings") or {}, new.get("settings") or {}
    was, now = recorded_engine(old), recorded_engine(new)
    if was != now:  # image ids are the engine's own: theirs differ too, and say nothing more
        out.append(f"engine {was} -> {now} (it ran on {was}: pass {_ENGINE_FLAG} {was} to resume it)")
    skipped = {ENGINE_KEY, "image_id"} if was != now else {ENGINE_KEY}
    for key in sorted(set(before) | set(after)):
        if key in skipped:
            continue
        if before.get(key) != after.get(key):
            out.append(
                f"{key} {_short(before.get(key))} -> {_short(after.get(key))}"
                + (_OLD_CLOCK_HINT if key == SIM_GENERATION_KEY and before.get(key) is None else "")
            )
    old_scenarios = old.get("scenarios") or {}
    changed = [
        key
        for key, digest in (new.get("scenarios") or {}).items()
        if key in old_scenarios and old_scenarios[key] != digest
    ]
    if changed:
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        out.append(f"scenario file changed: {', '.join(k.lstrip('/') for k in changed[:3])}{more}")
    return out


def recorded_engine(doc: dict[str, Any]) -> str:
    """The engine a fingerprint's run used (podman when none is recorded: see ENGINE_KEY)."""
    engine = (doc.get("settings") or {}).get(ENGINE_KEY)
    return engine if isinstance(engine, str) and engine else PODMAN


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:37] + "…"
