"""The `compare --html` page: one self-contained file (styles inlined, no script), so it can be
written anywhere and mailed around; every value is escaped by the template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.atomic import write_bytes_atomic
from .render import STATIC, render


def _points(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f} pts"


def write_compare_page(result: Any, path: Path) -> Path:
    """Write the page for an analysis.Comparison; the file is replaced atomically."""
    if path.is_dir() or not path.parent.is_dir():
        raise Gaia2Error(f"--html {path}: give a file name in an existing directory")
    deltas = [("overall", result.overall), *result.splits.items()] if len(result.splits) > 1 \
        else [("overall", result.overall)]
    fixed = sum(1 for f in result.flips if f.direction == "fixed")
    text = render("compare.html.j2", result=result, deltas=deltas, fixed=fixed, broke=len(result.flips) - fixed,
                  points=_points, css=(STATIC / "viewer.css").read_text(encoding="utf-8"))
    write_bytes_atomic(path, text.encode("utf-8", errors="replace"))
    return path
