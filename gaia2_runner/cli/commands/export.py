"""`export OUTPUT_DIR --format F`: a run's rows as a table file, ARE's trace dumps or leaderboard rows."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from gaia2_runner.analysis import TABLE_FORMATS
from gaia2_runner.analysis.export import FORMATS, export, upload
from gaia2_runner.analysis.leaderboard_complete import count_phases, upload_refusal
from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.options import DEFAULT_VERDICTS, VerdictsOption
from gaia2_runner.config.defaults import DEFAULT_HUB_SPLIT
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.exit_codes import EXIT_OK
from gaia2_runner.output.leaderboard_phases import is_leaderboard_root
from gaia2_runner.text import printable


@friendly
def export_cmd(
    output_dir: Path = typer.Argument(..., help="A run's output directory."),
    fmt: str = typer.Option(..., "--format", help=f"One of: {', '.join(FORMATS)}."),
    dest: Path | None = typer.Option(
        None,
        "--out",
        help="Where to write (default: OUTPUT_DIR/export.FORMAT, "
        "or the directory OUTPUT_DIR/export_FORMAT for are and leaderboard).",
    ),
    hf_split: str | None = typer.Option(
        None,
        "--hf-split",
        help="leaderboard: the dataset split the rows go "
        f"in (default: the runs' hub split, else {DEFAULT_HUB_SPLIT}).",
    ),
    hf_upload: str | None = typer.Option(
        None,
        "--hf-upload",
        metavar="REPO",
        help="leaderboard: also upload it to this Hugging Face dataset repo (token from HF_TOKEN).",
    ),
    verdicts: VerdictsOption = DEFAULT_VERDICTS,
) -> None:
    """One row per run (ids, split, verdict, reason, turns, actions, tokens, cost, tool errors,
    simulated and wall time, the verdict set and, for a re-judge, the original verdict) as csv,
    jsonl or parquet; `are`: ARE's hf/ and lite/ trace dumps;
    `leaderboard`: the rows a Gaia2 submission uploads, in the hub's layout."""
    if hf_upload is not None and fmt != "leaderboard":
        raise Gaia2Error("--hf-upload goes with --format leaderboard")
    root = Path(output_dir).expanduser()
    if hf_upload is not None and is_leaderboard_root(
        root
    ):  # a whole entry or nothing, as `leaderboard` uploads
        refusal = upload_refusal(count_phases(root, verdicts))
        if refusal is not None:
            raise Gaia2Error(refusal)
    path, count, missing = export(output_dir, fmt, dest, hf_split, verdicts)
    # Paths fold at the terminal's width (no line past it) rather than run on.
    what = "rows" if fmt in TABLE_FORMATS else "runs"
    out.print(Text(printable(f"wrote {count} {what} to {path}"), overflow="fold"))
    if missing:
        err.print(
            Text(
                printable(
                    f"{len(missing)} runs have no ARE trace (runs from before this runner version): "
                    + ", ".join(missing[:5])
                    + (" …" if len(missing) > 5 else "")
                ),
                style="yellow",
                overflow="fold",
            )
        )
    if hf_upload is not None:
        out.print(Text(printable(f"uploaded: {upload(path, hf_upload)}"), overflow="fold"))
    raise typer.Exit(EXIT_OK)
