"""Load and check a Gaia2 scenario file before any container starts.

A broken file is the user's mistake; catching it here costs milliseconds, while catching it inside
the container costs an image start and ends in a vague daemon error.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

from gaia2_contract.files_tree import FileTreeError, data_files
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.inputs import MAX_SCENARIO_BYTES, decode_text, parse_json, read_bytes


@dataclass(frozen=True)
class ScenarioFile:
    """A scenario file that passed the checks; `raw` is copied into the container unchanged."""

    path: Path
    scenario_id: str
    duration: float | None
    raw: bytes
    warnings: list[str] = field(default_factory=list)
    # Files app data the scenario needs (`real_path`s, relative to the file data directory).
    data_files: tuple[str, ...] = ()

    @property
    def sha256(self) -> str:
        """The file's digest: part of a run's fingerprint (a changed scenario is another scenario)."""
        return hashlib.sha256(self.raw).hexdigest()


def load_scenario(path: str | Path) -> ScenarioFile:
    """Read `path` and check the fields the runner and the daemon rely on.

    Raises Gaia2Error naming the file and the problem. A missing scenario id is only a warning:
    the file stem is used instead.
    """
    p = Path(path)
    raw = read_bytes(p, "scenario file", MAX_SCENARIO_BYTES)
    text = decode_text(raw, p, "scenario file", "JSON")
    if not text.strip():
        raise Gaia2Error(f"scenario file {p} is empty: expected a Gaia2 scenario JSON object")
    data = parse_json(text, p, "scenario file")
    if not isinstance(data, dict):
        raise Gaia2Error(
            f"scenario file {p} holds a JSON {type(data).__name__}, not an object: "
            "expected a Gaia2 scenario export"
        )
    for key in ("events", "apps"):
        if key not in data:
            raise Gaia2Error(f"scenario file {p} has no `{key}` field: expected a Gaia2 scenario export")
        if not isinstance(data[key], list):
            raise Gaia2Error(f"scenario file {p}: `{key}` must be a list, got {type(data[key]).__name__}")

    warnings: list[str] = []
    definition = _definition(data)
    scenario_id = definition.get("scenario_id")
    if not isinstance(scenario_id, str) or not scenario_id.strip():
        scenario_id = p.stem
        warnings.append(f"{p}: no metadata.definition.scenario_id, using the file name {p.stem!r}")
    duration = _duration(p, definition.get("duration"))
    try:
        needed = tuple(data_files(data))
    except FileTreeError as exc:
        raise Gaia2Error(f"scenario file {p}: {exc}") from None
    return ScenarioFile(
        path=p,
        scenario_id=scenario_id.strip(),
        duration=duration,
        raw=raw,
        warnings=warnings,
        data_files=needed,
    )


MAX_DURATION_S = 30 * 86400  # a month of simulated time: anything above is a broken file


def _definition(data: dict) -> dict:
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return {}
    definition = metadata.get("definition")
    return definition if isinstance(definition, dict) else {}


def _duration(p: Path, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Gaia2Error(
            f"scenario file {p}: metadata.definition.duration must be a number of seconds or null, "
            f"got {str(value)[:60]!r}"
        )
    if not math.isfinite(value) or value > MAX_DURATION_S:
        raise Gaia2Error(
            f"scenario file {p}: metadata.definition.duration {str(value)[:40]} is not a "
            f"duration in seconds (at most {MAX_DURATION_S})"
        )
    if value < 0:
        raise Gaia2Error(f"scenario file {p}: metadata.definition.duration is negative ({value})")
    return float(value)
