"""`ls`, `compare` and `export`: typer options over gaia2_runner.analysis; tables fit 80 columns."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

import typer
from rich.text import Text

from gaia2_runner.analysis import TABLE_FORMATS, compare, describe, find_output_dirs
from gaia2_runner.analysis.export import FORMATS, export, upload
from gaia2_runner.analysis.compare import Comparison, Delta
from gaia2_runner.engine.rejudge import Rejudged, rejudge_output
from gaia2_runner.cli.base import EXIT_NO_VERDICT, EXIT_OK, app, err, friendly, out
from gaia2_runner.cli.options import settings_named, with_settings
from gaia2_runner.config import judge_overrides
from gaia2_runner.output.layout import REJUDGE_SUMMARY_FILE
from gaia2_runner.sandbox.images import ensure_images
from gaia2_runner.cli.display import add_fixed, add_flexible, add_name, compact_table, name_cell, one_line_cell
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.text import printable
from gaia2_runner.viewer.compare_page import write_compare_page

MAX_FLIP_ROWS = 50


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


@app.command("ls")
@friendly
def ls_cmd(
    dirs: Optional[list[Path]] = typer.Argument(None, help="Output directories, or directories holding them "
                                                "(searched two levels deep). Default: the current directory."),
) -> None:
    """List runs: model, harness, judge, date, success rate, pass@k, and whether complete."""
    found = find_output_dirs(dirs or [Path(".")])
    if not found:
        raise Gaia2Error(f"no output directory of a gaia2-runner run under {', '.join(map(str, dirs or ['.']))}")
    table = compact_table(f"gaia2-runner runs ({len(found)})")
    add_name(table, "run · model · harness · judge", max_width=30)
    add_fixed(table, "date", "left")
    add_fixed(table, "runs")
    add_fixed(table, "rate")
    add_fixed(table, "pass@k (k)")
    add_fixed(table, "done", "left")
    for path in found:
        info = describe(path)
        who = " · ".join((info.model or "-", info.harness or "-", info.judge or "no judge"))
        label = name_cell(str(path))
        label.append("\n" + printable(who), style="dim")
        table.add_row(label, (info.started_at or "-")[:10], str(info.runs), _pct(info.rate),
                      f"{_pct(info.pass_at_k_rate)} ({info.pass_at})", "yes" if info.complete else "no")
    out.print(table)
    raise typer.Exit(EXIT_OK)


def _delta_text(delta: Delta) -> str:
    if delta.delta is None:
        return "no scenarios in common"
    se = "" if delta.se is None else f" ± {100 * delta.se:.1f}"
    return f"{_pct(delta.a)} → {_pct(delta.b)}: {100 * delta.delta:+.1f}{se} points ({delta.scenarios} scenarios)"


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
        table.add_row(name_cell(label), _pct(flip.a), _pct(flip.b), one_line_cell(reason))
    if len(result.flips) > MAX_FLIP_ROWS:
        table.caption = f"… and {len(result.flips) - MAX_FLIP_ROWS} more (see the HTML page)"
    out.print(table)


@app.command("compare")
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


@app.command("export")
@friendly
def export_cmd(
    output_dir: Path = typer.Argument(..., help="A run's output directory."),
    fmt: str = typer.Option(..., "--format", help=f"One of: {', '.join(FORMATS)}."),
    dest: Optional[Path] = typer.Option(None, "--out", help="Where to write (default: OUTPUT_DIR/export.FORMAT, "
                                        "or the directory OUTPUT_DIR/export_FORMAT for are and leaderboard)."),
    hf_split: str = typer.Option("validation", "--hf-split", help="leaderboard: the dataset split the rows go in."),
    hf_upload: Optional[str] = typer.Option(None, "--hf-upload", metavar="REPO",
                                            help="leaderboard: also upload it to this Hugging Face dataset repo "
                                            "(token from HF_TOKEN)."),
) -> None:
    """One row per run (ids, split, verdict, reason, turns, actions, tokens, cost, tool errors,
    simulated and wall time) as csv, jsonl or parquet; `are`: ARE's hf/ and lite/ trace dumps;
    `leaderboard`: the rows a Gaia2 submission uploads, in the hub's layout."""
    if hf_upload is not None and fmt != "leaderboard":
        raise Gaia2Error("--hf-upload goes with --format leaderboard")
    path, count, missing = export(output_dir, fmt, dest, hf_split)
    out.print(f"wrote {count} rows to {path}" if fmt in TABLE_FORMATS else f"wrote {count} runs to {path}",
              soft_wrap=True)
    if missing:
        err.print(Text(f"{len(missing)} runs have no ARE trace (runs from before this runner version): "
                       + ", ".join(missing[:5]) + (" …" if len(missing) > 5 else ""), style="yellow"), soft_wrap=True)
    if hf_upload is not None:
        out.print(f"uploaded: {upload(path, hf_upload)}", soft_wrap=True)
    raise typer.Exit(EXIT_OK)


def _print_rejudged(run: Rejudged) -> None:
    """One line per run as it is judged: what changed and, for a failure, why."""
    why = run.error or (run.reason if run.new is False else "")
    err.print(Text(printable(f"{run.change:<8} {run.rel or run.scenario_id}" + (f": {why}" if why else ""))),
              soft_wrap=True)


@app.command("judge")
@friendly
@with_settings(settings_named("judge"))
def judge_cmd(
    output_dir: Path = typer.Argument(..., help="A run's output directory."),
    concurrency: int = typer.Option(2, "--concurrency", min=1, max=64, help="Judge containers at a time."),
    settings: dict[str, Any] = None,  # type: ignore[assignment]
) -> None:
    """Re-judge finished runs offline with ARE's judge, from the ARE trace each run saved (no agent,
    no apps run). New verdicts go beside the old ones (rejudged.json); rejudge_summary.json and the
    table below say what changed. Exit 1 when some run could not be judged."""
    config = judge_overrides(settings)
    ensure_images()  # builds only what is missing or stale (the rejudge entry point ships with the images)
    outcome = rejudge_output(output_dir, config, dict(os.environ), concurrency=concurrency,
                             on_done=_print_rejudged)
    table = compact_table(f"re-judged {len(outcome.runs)} runs")
    add_name(table, "scenario")
    add_fixed(table, "before", "left")
    add_fixed(table, "now", "left")
    add_flexible(table, "reason")
    word = {True: "PASS", False: "FAIL", None: "ERROR"}
    for run in outcome.runs:
        if run.change != "same":
            table.add_row(name_cell(run.rel or run.scenario_id), word[run.old], word[run.new],
                          one_line_cell(run.error or run.reason))
    if any(run.change != "same" for run in outcome.runs):
        out.print(table)
    counts = outcome.counts()
    out.print(Text(", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
                   + (f"; {len(outcome.skipped)} without an ARE trace" if outcome.skipped else "")
                   + f"; details in {output_dir / REJUDGE_SUMMARY_FILE}"), soft_wrap=True)
    raise typer.Exit(EXIT_NO_VERDICT if counts.get("error") else EXIT_OK)
