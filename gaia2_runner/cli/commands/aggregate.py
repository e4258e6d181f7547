"""`aggregate OUT_ROOT`: merge shard outputs into the root's results, summary, report and viewer."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.launch import show_outcome
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.aggregate import aggregate
from gaia2_runner.exit_codes import EXIT_NO_VERDICT, EXIT_OK
from gaia2_runner.text import printable

ALLOW_PARTIAL_HELP = (
    "Merge even with missing shards or runs without a result; the summary is then "
    "marked incomplete (missing runs count as failures in the headline rate)."
)


@friendly
def aggregate_cmd(
    output_root: str = typer.Argument(..., help="The output_dir the shards ran with (holds shards/I-of-N/)."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help=ALLOW_PARTIAL_HELP),
) -> None:
    """Merge the shards of one plan (--shard I/N runs) into one results.jsonl, summary, report and viewer.

    Refuses shards of different setups (fingerprints), duplicate runs, and gaps (missing shards,
    runs without a result) unless --allow-partial. Exit 0 when every planned run has a verdict,
    1 otherwise, 2 when refused.
    """
    root = Path(output_root)
    if not root.is_dir():
        raise Gaia2Error(f"{root} is not a directory: pass the output_dir the shards ran with")
    merged = aggregate(root, allow_partial=allow_partial)
    from gaia2_runner.viewer import build

    try:
        build(root)
    except OSError as exc:  # the merged files are written; only the pages are missing
        err.print(Text(printable(f"warning: viewer not written: {exc}"), style="yellow"))
    if merged.missing_shards or merged.missing_runs:
        gaps = merged.missing_shards + merged.missing_runs
        err.print(
            Text(
                printable(
                    f"warning: --allow-partial: merged without {len(gaps)} missing shard(s)/run(s): "
                    f"{', '.join(gaps[:5])}{' …' if len(gaps) > 5 else ''}"
                ),
                style="yellow",
            )
        )
    out.print(Text(printable(f"merged {len(merged.shards)} shard(s): {', '.join(merged.shards)}")))
    show_outcome(merged.outcome, out)
    raise typer.Exit(EXIT_OK if merged.outcome.summary.complete else EXIT_NO_VERDICT)
