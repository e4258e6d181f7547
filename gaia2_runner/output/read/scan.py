"""Find scenario directories in an output tree by what they contain, whatever the layout.

Layouts seen: `<out>/<scenario>/`, `<out>/<split>/<scenario>/`, and either under `run_<k>/` for
pass@k. Scenarios that run_config.json lists but that have no directory yet are `pending`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.output.layout import (
    RUN_CONFIG_FILE,
    TRACE_PAGE_FILE,
    VIEWER_DIR,
    scenario_dir,
)
from gaia2_runner.output.layout import RUN_DIR_PATTERN as RUN_DIR
from gaia2_runner.output.layout import SCENARIO_MARKERS as MARKERS

from .safe_io import RUN_CONFIG_CAP, read_json, real_dir

MAX_DEPTH = 4
MAX_LISTED = 200_000  # scenarios one run_config.json may list (the full Gaia2 set is ~1,000 per split)
MAX_WARNINGS = 50


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
    if rel_parts and (match := RUN_DIR.match(rel_parts[0])):
        run = int(match.group(1))
        rest = rel_parts[1:]
    else:
        rest = rel_parts
    name = rest[-1] if rest else directory.resolve().name
    split = "/".join(rest[:-1]) or None
    return ScenarioRef(rel="/".join(rel_parts), name=name, split=split, run=run)


def find_scenarios(root: Path, warnings: list[str] | None = None) -> list[ScenarioRef]:
    """Every scenario directory under `root`, plus listed-but-not-started ones, sorted.

    Symbolic links are never followed (each one met is reported in `warnings`), so nothing
    outside the output directory is read or written through them."""
    warnings = [] if warnings is None else warnings
    found: dict[str, ScenarioRef] = {}
    _walk(root, root, 0, found, warnings)
    for run_dir, listed in _listed_scenarios(root, warnings):
        for split, scenario_id in listed:
            directory = scenario_dir(run_dir, split, scenario_id)
            ref = ref_for(root, directory)
            if ref.rel not in found:
                found[ref.rel] = ScenarioRef(
                    ref.rel, ref.name, ref.split, ref.run, exists=real_dir(root, directory)
                )
    if len(warnings) > MAX_WARNINGS:
        warnings[MAX_WARNINGS:] = [f"… and {len(warnings) - MAX_WARNINGS} more warnings"]
    return sorted(found.values(), key=lambda r: (r.split or "", r.name, r.run or 0))


def _walk(
    root: Path, directory: Path, depth: int, found: dict[str, ScenarioRef], warnings: list[str]
) -> None:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    if any(e.name in MARKERS and (e.is_symlink() or e.is_file(follow_symlinks=False)) for e in entries):
        ref = ref_for(root, directory)
        found[ref.rel] = ref
        return
    if depth >= MAX_DEPTH:
        return
    for entry in entries:
        if entry.name == VIEWER_DIR or entry.name.startswith("."):
            continue
        try:
            if entry.is_symlink():
                if len(warnings) <= MAX_WARNINGS and entry.is_dir():
                    warnings.append(
                        f"{Path(entry.path).relative_to(root).as_posix()} is a symbolic link to a directory: "
                        "not followed"
                    )
            elif entry.is_dir(follow_symlinks=False):
                _walk(root, Path(entry.path), depth + 1, found, warnings)
        except OSError:
            continue


def run_dirs_of(root: Path) -> list[Path]:
    """root and its run_<k>/ directories (links excluded), for the per-run files."""
    out = [root]
    try:
        out += sorted(
            Path(e.path)
            for e in os.scandir(root)
            if RUN_DIR.match(e.name) and e.is_dir(follow_symlinks=False)
        )
    except OSError:
        pass
    return out


def _listed_scenarios(root: Path, warnings: list[str]) -> list[tuple[Path, list[tuple[str | None, str]]]]:
    """(run dir, [(split, scenario_id)]) from each run_config.json the dataset executor wrote."""
    out = []
    for run_dir in run_dirs_of(root):
        doc = read_json(
            root,
            run_dir / RUN_CONFIG_FILE,
            RUN_CONFIG_CAP,
            label=(run_dir / RUN_CONFIG_FILE).relative_to(root).as_posix(),
        )
        if doc.warning:
            warnings.append(doc.warning)
        scenarios = doc.value.get("scenarios") if isinstance(doc.value, dict) else None
        if not isinstance(scenarios, list):
            continue
        if len(scenarios) > MAX_LISTED:
            warnings.append(
                f"run_config.json lists {len(scenarios):,} scenarios: only the first {MAX_LISTED:,} are shown"
            )
        listed = []
        for entry in scenarios[:MAX_LISTED]:
            scenario_id = entry.get("scenario_id") if isinstance(entry, dict) else None
            if isinstance(scenario_id, (int, float)) and not isinstance(scenario_id, bool):
                scenario_id = str(scenario_id)
            if not isinstance(scenario_id, str) or not scenario_id:
                continue
            split = entry.get("split")
            listed.append((split if isinstance(split, str) and split else None, scenario_id))
        out.append((run_dir, listed))
    return out


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
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        sig.append([entry.name, st.st_size, st.st_mtime_ns])
    return sig
