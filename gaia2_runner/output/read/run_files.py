"""The run-level documents of an output directory, read as hostile files: run_config.json (the
first run directory that has a readable one) and summary.json."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gaia2_runner.output.layout import RUN_CONFIG_FILE, SUMMARY_FILE

from . import safe_io
from .scan import run_dirs_of


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
