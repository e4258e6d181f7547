"""`judge OUTPUT_DIR`: re-judge finished runs offline with ARE's judge; a table of what changed,
then the report over the verdicts now current. `--use original|rejudged` only switches sets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from gaia2_runner.analysis import describe, load_rows
from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.display import (
    add_fixed,
    add_flexible,
    add_name,
    compact_table,
    name_cell,
    one_line_cell,
)
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.options import EngineOption, settings_named, with_settings
from gaia2_runner.cli.report_view import render_summary
from gaia2_runner.config import judge_overrides
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.rejudge import Rejudged, rejudge_output
from gaia2_runner.exit_codes import EXIT_NO_VERDICT, EXIT_OK
from gaia2_runner.output.layout import REJUDGE_SUMMARY_FILE
from gaia2_runner.output.read.run_files import require_run
from gaia2_runner.output.read.verdicts import VERDICT_SETS, use
from gaia2_runner.output.summary import summarize
from gaia2_runner.sandbox.images import ensure_images
from gaia2_runner.sandbox.sandbox import Sandbox
from gaia2_runner.text import printable


def _print_rejudged(run: Rejudged) -> None:
    """One line per run as it is judged: what changed and, for a failure, why."""
    why = run.error or (run.reason if run.new is False else "")
    err.print(
        Text(printable(f"{run.change:<8} {run.rel or run.scenario_id}" + (f": {why}" if why else ""))),
        soft_wrap=True,
    )


_USE_SET_OPTION = typer.Option(
    None,
    "--use",
    metavar="SET",
    help=(
        "Judge nothing: make original or rejudged the current verdicts (what ls, compare, export, "
        "view and the report show) and print the report."
    ),
)


@friendly
@with_settings(settings_named("judge"))
def judge_cmd(
    output_dir: Path = typer.Argument(..., help="A run's output directory."),
    concurrency: int = typer.Option(2, "--concurrency", min=1, max=64, help="Judge containers at a time."),
    use_set: str | None = _USE_SET_OPTION,
    engine: EngineOption = None,
    settings: dict[str, Any] = None,  # type: ignore[assignment]
) -> None:
    """Re-judge finished runs offline with ARE's judge, from the ARE trace each run saved (no agent,
    no apps run). New verdicts go beside the old ones (rejudged.json) and become the current ones
    (verdicts.json; `--use original` goes back); rejudge_summary.json and the table below say what
    changed, the report what they add up to. Exit 1 when some run could not be judged."""
    root = require_run(
        output_dir, finished=True
    )  # before any image work: a wrong directory is one line at once
    if use_set is not None:
        if use_set not in VERDICT_SETS:
            raise Gaia2Error(f"--use {use_set}: use one of {', '.join(VERDICT_SETS)}")
        chosen = use(root, use_set)
        out.print(Text(printable(f"current verdicts of {output_dir}: {chosen.describe()}"), overflow="fold"))
        _refresh_report(output_dir)
        raise typer.Exit(EXIT_OK)
    config = judge_overrides(settings)
    with Sandbox.connect(engine=engine) as sandbox:
        ensure_images(
            sandbox
        )  # builds only what is missing or stale (the rejudge entry point ships with the images)
        outcome = rejudge_output(
            output_dir,
            config,
            dict(os.environ),
            concurrency=concurrency,
            sandbox=sandbox,
            on_done=_print_rejudged,
        )
    if any(run.change != "same" for run in outcome.runs):
        out.print(_changes_table(outcome.runs))
    counts = outcome.counts()
    out.print(
        Text(
            ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
            + (f"; {len(outcome.skipped)} without an ARE trace" if outcome.skipped else "")
            + f"; details in {output_dir / REJUDGE_SUMMARY_FILE}"
        ),
        soft_wrap=True,
    )
    _refresh_report(output_dir)
    raise typer.Exit(EXIT_NO_VERDICT if counts.get("error") else EXIT_OK)


def _refresh_report(output_dir: Path) -> None:
    """The viewer's pages and the report, over the verdicts now current (summary.json keeps the
    run's own: the report is recomputed from the rows)."""
    from gaia2_runner.viewer import build

    info = describe(output_dir)
    try:
        build(output_dir)
    except (OSError, Gaia2Error) as exc:  # the verdicts are recorded; only the pages are stale
        err.print(Text(printable(f"warning: viewer not written: {exc}"), style="yellow"), soft_wrap=True)
    rows = load_rows(output_dir, info.verdicts)
    out.print(Text(printable(f"report over the {info.verdicts.describe()}:"), overflow="fold"))
    out.print(render_summary(summarize([r.summary_record() for r in rows], pass_at=info.pass_at)))


def _changes_table(runs: list[Rejudged]) -> Table:
    """The runs whose verdict the re-judge changed: before, now and why."""
    table = compact_table(f"re-judged {len(runs)} runs")
    add_name(table, "scenario")
    add_fixed(table, "before", "left")
    add_fixed(table, "now", "left")
    add_flexible(table, "reason")
    word = {True: "PASS", False: "FAIL", None: "ERROR"}
    for run in runs:
        if run.change != "same":
            table.add_row(
                name_cell(run.rel or run.scenario_id),
                word[run.old],
                word[run.new],
                one_line_cell(run.error or run.reason),
            )
    return table
