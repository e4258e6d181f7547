"""`serve --output-dir D`: the viewer over HTTP, kept up to date while a run writes into it."""

from __future__ import annotations

from typing import Annotated

import typer

from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.options import DEFAULT_VERDICTS, VerdictsOption
from gaia2_runner.cli.output_dir import OutputDirOption, existing_output_dir
from gaia2_runner.errors import Gaia2Error

DEFAULT_HOST = "127.0.0.1"  # loopback only: the pages show agents' traces
STOPPED = "stopped"  # the last line when Ctrl-C ends it, start-up included


@friendly(stop_line=STOPPED)
def serve_cmd(
    output_dir: OutputDirOption,
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (default: loopback only).")
    ] = DEFAULT_HOST,
    port: Annotated[int, typer.Option("--port", help="Port (0: a free one; the URL is printed).")] = 0,
    verdicts: VerdictsOption = DEFAULT_VERDICTS,
) -> int:
    """Serve the viewer live: pages regenerate as results land and open pages update themselves."""
    # Port 0 picks a free port; the URL is printed. Pages reload by themselves when their scenario
    # changes. Ctrl-C stops it (exit 0), also while it is starting: friendly's stop_line.
    if not 0 <= port <= 65535:
        raise Gaia2Error(f"--port {port} is not a TCP port: use 1-65535, or 0 for a free one")
    path = existing_output_dir(output_dir)
    from gaia2_runner.viewer.live import serve

    return serve(path, host, port, say=lambda line: print(line, flush=True), verdicts=verdicts)
