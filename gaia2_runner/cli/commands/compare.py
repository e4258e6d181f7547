"""`compare A B`: per-scenario flips and the success-rate delta between two runs; tables fit 80 columns."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from gaia2_runner.analysis import compare, describe
from gaia2_runner.analysis.compare import Comparison, Delta
from gaia2_runner.cli.console import out
from gaia2_runner.cli.display import (
    add_fixed,
    add_flexible,
    add_name,
    compact_table,
    name_cell,
    one_line_cell,
    pct,
    who_ran,
)
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.options import VERDICTS_FLAG, VERDICTS_HELP
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.exit_codes import EXIT_OK
from gaia2_runner.output.read.verdicts import CURRENT, VerdictSet
from gaia2_runner.text import printable
from gaia2_runner.viewer.compare_page import write_compare_page

MAX_FLIP_ROWS = 50
MAX_SPLIT_WIDTH = 16


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


def delta_text(delta: Delta) -> str:
    """`100.0% → 50.0%, -50.0 points, 95% interval -80.2 to -19.8`: the paired difference B - A
    and its interval; with one scenario there is no spread, and none is shown."""
    if delta.delta is None:
        return "no scenarios in common"
    head = f"{pct(delta.a)} → {pct(delta.b)}, {_points(delta.delta)} points"
    if delta.low is None or delta.high is None:
        return f"{head} (1 scenario: no spread)"
    return f"{head}, 95% interval {_points(delta.low)} to {_points(delta.high)}"


def _flips(delta: Delta) -> str:
    return (
        f"{delta.fixed} fixed, {delta.broke} broke, {delta.scenarios - delta.fixed - delta.broke} unchanged"
    )


def _side(name: str, path: Path, verdicts: VerdictSet) -> Text:
    text = Text(f"{name}: ", style="bold")
    text.append(printable(str(path)))
    text.append(
        "".join("\n   " + printable(line) for line in who_ran(describe(path, verdicts.name))), style="dim"
    )
    return text


def splits_table(result: Comparison) -> Table:
    """Per split: scenarios in common, A, B, B - A with its 95% interval, fixed and broke."""
    table = compact_table("per split (B - A in points)")
    add_name(table, "split", MAX_SPLIT_WIDTH)
    for name in ("n", "A", "B", "B - A", "95% interval", "fixed", "broke"):
        add_fixed(table, name)
    for split, d in result.splits.items():
        interval = "no spread" if d.low is None or d.high is None else f"{_points(d.low)} … {_points(d.high)}"
        table.add_row(
            name_cell(split),
            str(d.scenarios),
            pct(d.a),
            pct(d.b),
            "-" if d.delta is None else _points(d.delta),
            interval,
            str(d.fixed),
            str(d.broke),
        )
    return table


def print_comparison(result: Comparison) -> None:
    out.print(_side("A", result.a, result.verdicts_a))
    out.print(_side("B", result.b, result.verdicts_b))
    overall = result.overall
    out.print(Text(f"B - A over {overall.scenarios} scenarios in common (paired):", style="bold"))
    out.print(Text(f"  success {delta_text(overall)}", style="bold"))
    if overall.se is not None:
        out.print(Text(f"  paired standard error {100 * overall.se:.1f} points"))
    out.print(
        Text(f"  flips: {_flips(overall)}; {len(result.only_a)} only in A, {len(result.only_b)} only in B")
    )
    if len(result.splits) > 1:
        out.print(splits_table(result))
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
    html: Path | None = typer.Option(None, "--html", help="Also write the comparison as an HTML page here."),
    verdicts: list[str] | None = typer.Option(
        None,
        VERDICTS_FLAG,
        metavar="SET",
        help=VERDICTS_HELP
        + (
            " Twice: A's, then B's (`compare D D --verdicts original --verdicts rejudged`: what a re-judge changed)."
        ),
    ),
) -> None:
    """Per-scenario flips and the success-rate difference B - A with its paired standard error
    and 95% interval, overall and per split."""
    sets = verdicts or [CURRENT]
    if len(sets) > 2:
        raise Gaia2Error(
            f"--verdicts given {len(sets)} times: give it once (both runs) or twice (A's, then B's)"
        )
    result = compare(a, b, (sets[0], sets[-1]))
    print_comparison(result)
    if html is not None:
        out.print(f"wrote {write_compare_page(result, html)}")
    raise typer.Exit(EXIT_OK)
