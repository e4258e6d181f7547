"""`ls [DIRS]`: the runs found under some directories, one row each; the table fits 80 columns."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from gaia2_runner.analysis import describe, find_output_dirs
from gaia2_runner.cli.console import out
from gaia2_runner.cli.display import add_fixed, add_name, compact_table, name_cell, pct, who_ran
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.options import DEFAULT_VERDICTS, VerdictsOption
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.exit_codes import EXIT_OK
from gaia2_runner.text import printable


@friendly
def ls_cmd(
    dirs: list[Path] | None = typer.Argument(
        None,
        help="Output directories, or directories holding them "
        "(searched two levels deep). Default: the current directory.",
    ),
    verdicts: VerdictsOption = DEFAULT_VERDICTS,
) -> None:
    """List runs: agent kind, model, judge, image, runner version, date, engine, success rate,
    pass@k, and whether complete; a re-judged run says which verdicts its numbers are from (a run never
    re-judged shows its own with --verdicts rejudged)."""
    found = find_output_dirs(dirs or [Path(".")])
    if not found:
        raise Gaia2Error(
            f"no output directory of a gaia2-runner run under {', '.join(map(str, dirs or [Path('.')]))}"
        )
    table = compact_table(f"gaia2-runner runs ({len(found)})")
    add_name(table, "run · agent · model · judge", max_width=30)
    add_fixed(table, "date\nengine", "left")  # stacked: a column of its own would pass 80 columns
    add_fixed(table, "runs")
    add_fixed(table, "rate")
    add_fixed(table, "pass@k (k)")
    add_fixed(table, "done", "left")
    for path in found:
        info = describe(path, verdicts)
        label = name_cell(str(path))
        for line in who_ran(info):
            label.append("\n" + printable(line), style="dim")
        when = Text((info.started_at or "-")[:10])
        when.append(
            "\n" + printable((info.engine or "")[:10]), style="dim"
        )  # blank: a run from before engines
        table.add_row(
            label,
            when,
            str(info.runs),
            pct(info.rate),
            f"{pct(info.pass_at_k_rate)} ({info.pass_at})",
            "yes" if info.complete else "no",
        )
    out.print(table)
    raise typer.Exit(EXIT_OK)
