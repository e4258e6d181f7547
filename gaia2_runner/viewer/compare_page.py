"""The `compare --html` page: one self-contained file (styles inlined, charts as inline SVG, no
script), so it can be written anywhere and mailed around; every value is escaped by the template.
Its links to the two runs' trace pages are relative to where the page is written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from markupsafe import Markup

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.atomic import write_bytes_atomic
from gaia2_runner.output.layout import TRACE_PAGE_FILE
from gaia2_runner.output.read.labels import run_labels
from gaia2_runner.output.read.safe_io import output_root

from .charts import Bar, bar_chart, percent
from .render import STATIC, render, url_path

A_VS_B = "a-vs-b"
MAX_PAIRED = 300  # scenarios drawn in the A-vs-B chart (flips first); the tables list every flip


def _points(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f} pts"


def trace_links(root: Path, dirs: list[str], page_dir: Path) -> list[str]:
    """Relative links from the page's directory to each run's trace page, encoded like the viewer's;
    a run whose page was never written (no `view` since) has none."""
    pages = [root / d / TRACE_PAGE_FILE for d in dirs]
    return [url_path(os.path.relpath(p, page_dir)) for p in pages if p.is_file()]


def a_vs_b_chart(pairs: list[Any]) -> Markup | None:
    """Per scenario, A's and B's share of passed runs side by side: the ones B broke first, then the
    ones it fixed, then the unchanged."""
    if not pairs:
        return None
    order = sorted(pairs, key=lambda p: (p.a == p.b, p.b - p.a, p.split, p.scenario_id))[:MAX_PAIRED]
    bars = []
    for p in order:
        name = p.scenario_id if p.split == "default" else f"{p.split}/{p.scenario_id}"
        change = "broke" if p.b < p.a else "fixed" if p.b > p.a else "unchanged"
        for side, value in (("A", p.a), ("B", p.b)):
            bars.append(
                Bar(
                    name,
                    value,
                    cls=f"{side.lower()}-side",
                    title=f"{name}, {side}: {percent(value)} of its runs passed ({change})",
                )
            )
    shown = f"{len(order)} of {len(pairs)} scenarios, " if len(order) < len(pairs) else ""
    return bar_chart(
        A_VS_B,
        "A vs B per scenario (share of runs passed)",
        bars,
        y_max=1.0,
        group=2,
        fmt=percent,
        caption=f"{shown}broke first, then fixed, then unchanged; grey A, blue B",
    )


def write_compare_page(result: Any, path: Path) -> Path:
    """Write the page for an analysis.Comparison; the file is replaced atomically."""
    if path.is_dir() or not path.parent.is_dir():
        raise Gaia2Error(f"--html {path}: give a file name in an existing directory")
    deltas = (
        [("overall", result.overall), *result.splits.items()]
        if len(result.splits) > 1
        else [("overall", result.overall)]
    )
    fixed = sum(1 for f in result.flips if f.direction == "fixed")
    page_dir, root_a, root_b = path.resolve().parent, output_root(result.a), output_root(result.b)
    links = [
        (trace_links(root_a, f.a_dirs, page_dir), trace_links(root_b, f.b_dirs, page_dir))
        for f in result.flips
    ]
    text = render(
        "compare.html.j2",
        result=result,
        deltas=deltas,
        fixed=fixed,
        broke=len(result.flips) - fixed,
        points=_points,
        links=links,
        zip=zip,
        labels=(run_labels(root_a, None), run_labels(root_b, None)),
        chart=a_vs_b_chart(result.pairs),
        css=(STATIC / "viewer.css").read_text(encoding="utf-8"),
    )
    write_bytes_atomic(path, text.encode("utf-8", errors="replace"))
    return path
