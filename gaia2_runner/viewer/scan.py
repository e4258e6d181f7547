"""Find scenario directories in an output tree by what they contain, whatever the layout.

Layouts seen: `<out>/<scenario>/`, `<out>/<split>/<scenario>/`, and either under `run_<k>/` for
pass@k. Scenarios that run_config.json lists but that have no directory yet are `pending`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.output.layout import RUN_DIR_PATTERN as RUN_DIR
from gaia2_runner.output.layout import SCENARIO_MARKERS as MARKERS
from gaia2_runner.output.layout import (
    RUN_CONFIG_FILE,
    TRACE_PAGE_FILE,
    VIEWER_DIR,
    run_dir_name,
    scenario_dir,
)

MAX_DEPTH = 4


@dataclass(frozen=True)
class ScenarioRef:
    """Where one run of one scenario lives; `rel` is its posix path from the output root."""

    rel: str
    name: str
    split: str | None
    run: int | None
    exists: bool = True

    @property
    def key(self) -> tuple[str, str]:
        return (self.split or "", self.name)

    def directory(self, root: Path) -> Path:
        return root / self.rel if self.rel else root


def is_scenario_dir(path: Path) -> bool:
    try:
        return any(entry.name in MARKERS for entry in os.scandir(path))
    except OSError:
        return False


def ref_for(root: Path, directory: Path) -> ScenarioRef:
    rel_parts = directory.relative_to(root).parts
    run = None
    if rel_parts and RUN_DIR.match(rel_parts[0]):
        run = int(RUN_DIR.match(rel_parts[0]).group(1))
        rest = rel_parts[1:]
    else:
        rest = rel_parts
    name = rest[-1] if rest else directory.resolve().name
    split = "/".join(rest[:-1]) or None
    return ScenarioRef(rel="/".join(rel_parts), name=name, split=split, run=run)


def find_scenarios(root: Path) -> list[ScenarioRef]:
    """Every scenario directory under `root`, plus listed-but-not-started ones, sorted."""
    found: dict[str, ScenarioRef] = {}
    _walk(root, root, 0, found)
    for run_dir, listed in _listed_scenarios(root):
        for split, scenario_id in listed:
            directory = scenario_dir(run_dir, split, scenario_id)
            ref = ref_for(root, directory)
            if ref.rel not in found:
                found[ref.rel] = ScenarioRef(ref.rel, ref.name, ref.split, ref.run, exists=directory.is_dir())
    return sorted(found.values(), key=lambda r: (r.split or "", r.name, r.run or 0))


def _walk(root: Path, directory: Path, depth: int, found: dict[str, ScenarioRef]) -> None:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    if any(e.name in MARKERS and e.is_file() for e in entries):
        ref = ref_for(root, directory)
        found[ref.rel] = ref
        return
    if depth >= MAX_DEPTH:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False) and entry.name != VIEWER_DIR and not entry.name.startswith("."):
            _walk(root, Path(entry.path), depth + 1, found)


def _listed_scenarios(root: Path) -> list[tuple[Path, list[tuple[str | None, str]]]]:
    """(run dir, [(split, scenario_id)]) from each run_config.json the dataset executor wrote."""
    out = []
    candidates = [root] + sorted(p for p in root.glob(run_dir_name("*")) if RUN_DIR.match(p.name))
    for run_dir in candidates:
        doc = read_json(run_dir / RUN_CONFIG_FILE)
        scenarios = doc.get("scenarios") if isinstance(doc, dict) else None
        if isinstance(scenarios, list):
            out.append((run_dir, [(s.get("split"), str(s["scenario_id"])) for s in scenarios
                                  if isinstance(s, dict) and s.get("scenario_id")]))
    return out


def read_json(path: Path) -> Any:
    """A JSON file, or None when it is missing or half-written."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def signature(directory: Path) -> list[list[Any]]:
    """What the pages of one scenario depend on: name, size and mtime of each input file."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return []
    sig = []
    for entry in entries:
        if entry.name == TRACE_PAGE_FILE or entry.name.endswith(".viewer-tmp"):
            continue
        try:
            st = entry.stat()
        except OSError:
            continue
        sig.append([entry.name, st.st_size, st.st_mtime_ns])
    return sig
