"""`view --output-dir D`: the static viewer, index.html and one trace.html per scenario."""

from __future__ import annotations

import time

from rich.text import Text

from gaia2_runner.cli.console import out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.options import DEFAULT_VERDICTS, VerdictsOption
from gaia2_runner.cli.output_dir import OutputDirOption, existing_output_dir
from gaia2_runner.exit_codes import EXIT_OK
from gaia2_runner.text import printable


@friendly
def view_cmd(output_dir: OutputDirOption, verdicts: VerdictsOption = DEFAULT_VERDICTS) -> int:
    """Write index.html and one trace.html per scenario (static; opens from disk, no network),
    showing the verdict set asked for."""
    # Works on single-scenario, dataset and pass@k layouts, and on runs still in progress. Only
    # scenarios whose files changed since the last view are re-read. Broken or hostile files cost
    # their scenario's page (shown raw, with a warning), never the command.
    from gaia2_runner.viewer import build

    path = existing_output_dir(output_dir)
    started = time.monotonic()
    site = build(path, verdicts)
    notes = len(site.page_problems) + len(site.scan_warnings)
    out.print(
        Text(
            printable(
                f"wrote {path / 'index.html'} ({len(site.rows)} scenario runs, "
                f"{time.monotonic() - started:.1f}s)"
                + (f"; {notes} warning(s) shown at the top of the index" if notes else "")
            ),
            overflow="fold",
        )
    )  # a long path folds: no line past the terminal's width
    return EXIT_OK
