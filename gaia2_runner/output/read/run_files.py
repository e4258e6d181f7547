"""The run-level documents of an output directory, read as hostile files: run_config.json (the
first run directory that has a readable one) and summary.json; and whether a directory holds a
run at all (`require_run`: the one check every command that reads output directories makes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.layout import RESULT_FILE, RUN_CONFIG_FILE, SUMMARY_FILE

from . import safe_io
from .scan import find_scenarios, is_scenario_dir, run_dirs_of


def json_object(root: Path, path: Path, cap: int | None = None) -> dict[str, Any] | None:
    """The JSON object in `path` under `root`, else None (missing, unreadable, not an object)."""
    doc = safe_io.read_json(root, path, cap)
    return doc.value if isinstance(doc.value, dict) else None


def first_run_config(root: Path) -> dict[str, Any] | None:
    """run_config.json of the root, else of the first run_<k>/ that has one."""
    for run_dir in run_dirs_of(root):
        doc = json_object(root, run_dir / RUN_CONFIG_FILE, safe_io.RUN_CONFIG_CAP)
        if doc:
            return doc
    return None


def read_summary(root: Path) -> dict[str, Any] | None:
    return json_object(root, root / SUMMARY_FILE)


def holds_run(root: Path) -> bool:
    """A run's output directory: a run_config.json (at the root or in a run_<k>/) or summary.json,
    or scenario directories of a run that wrote neither (the root or its children)."""
    if any((d / RUN_CONFIG_FILE).is_file() for d in run_dirs_of(root)) or (root / SUMMARY_FILE).is_file():
        return True
    if is_scenario_dir(root):
        return True
    try:
        return any(
            is_scenario_dir(child) for child in root.iterdir() if child.is_dir() and not child.is_symlink()
        )
    except OSError:
        return False


def has_finished_run(root: Path) -> bool:
    """Some run under `root` has its result.json (it ended, with or without a verdict)."""
    return any(ref.exists and (ref.directory(root) / RESULT_FILE).is_file() for ref in find_scenarios(root))


def require_run(path: str | Path, *, finished: bool = False) -> Path:
    """The resolved output root of `path` (safe_io.output_root), or a Gaia2Error naming it when it
    holds no run (and, with `finished`, when no run in it has ended yet): never an empty answer."""
    root = safe_io.output_root(path)
    if not root.is_dir():
        raise Gaia2Error(f"output directory {path} does not exist: pass the output directory of a run")
    if not holds_run(root):
        raise Gaia2Error(
            f"{path}: not an output directory of a gaia2-runner run (no run_config.json, "
            "summary.json or scenario directory in it)"
        )
    if finished and not has_finished_run(root):
        raise Gaia2Error(
            f"{path}: no run in it has finished yet (no result.json): wait for the run, "
            "or pass another output directory"
        )
    return root
