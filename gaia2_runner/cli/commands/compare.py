"""`compare A B`: per-scenario flips and the success-rate delta between two runs; tables fit 80 columns."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from gaia2_runner.analysis import compare
from gaia2_runner.analysis.compare import Comparison, Delta
from gaia2_runner.cli.console import out
from gaia2_runner.cli.display import add_fixed, add_flexible, add_name, compact_table, name_cell, one_line_cell, pct
from gaia2_runner.cli.errors import friendly
from gaia2_runner.exit_codes import EXIT_OK
from gaia2_runner.viewer.compare_page import write_compare_page
from rich.text import Text

MAX_FLIP_ROWS = 50


def _delta_text(delta: Delta) -> str:
    if delta.delta is None:
        return "no scenarios in common"
    se = "" if delta.se is None else f" ± {100 * delta.se:.1f}"
    return f"{pct(delta.a)} → {pct(delta.b)}: {100 * delta.delta:+.1f}{se} points ({delta.scenarios} scenarios)"


def print_comparison(result: Comparison) -> None:
    out.print(Text(f"A: {result.a}\nB: {result.b}"))
    out.print(Text(f"success rate {_delta_text(result.overall)}", style="bold"))
    if len(result.splits) > 1:
        for split, delta in result.splits.items():
            out.print(Text(f"  {split}: {_delta_text(delta)}"))
    fixed = sum(1 for f in result.flips if f.direction == "fixed")
    out.print(Text(f"{fixed} fixed, {len(result.flips) - fixed} broke, {result.unchanged} unchanged; "
                   f"{len(result.only_a)} only in A, {len(result.only_b)} only in B"))
    if not result.flips:
        return
    table = compact_table("flipped scenarios")
    add_name(table, "scenario")
    add_fixed(table, "A")
    add_fixed(table, "B")
    add_flexible(table, "reason (the failing side)")
    for flip in result.flips[:MAX_FLIP_ROWS]:
        label = flip.scenario_id if flip.split == "default" else f"{flip.split}/{flip.scenario_id}"
        reason = flip.b_reason if flip.direction == "broke" else flip.a_reason
        table.add_row(name_cell(label), pct(flip.a), pct(flip.b), one_line_cell(reason))
    if len(result.flips) > MAX_FLIP_ROWS:
        table.caption = f"… and {len(result.flips) - MAX_FLIP_ROWS} more (see the HTML page)"
    out.print(table)


@friendly
def compare_cmd(
    a: Path = typer.Argument(..., help="The baseline output directory."),
    b: Path = typer.Argument(..., help="The output directory compared with it."),
    html: Optional[Path] = typer.Option(None, "--html", help="Also write the comparison as an HTML page here."),
) -> None:
    """Per-scenario flips and the success-rate delta (B - A) with its paired standard error."""
    result = compare(a, b)
    print_comparison(result)
    if html is not None:
        out.print(f"wrote {write_compare_page(result, html)}")
    raise typer.Exit(EXIT_OK)
