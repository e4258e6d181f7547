"""`view` and `serve`: typer options over the functions in viewer_cmds.py."""

from __future__ import annotations

from pathlib import Path

import typer
from gaia2_runner.cli.base import app, friendly
from gaia2_runner.cli.viewer_cmds import serve_command, view_command


@app.command("view")
@friendly
def view_cmd(
    output_dir: Path = typer.Option(..., "--output-dir", help="A run's output directory."),
) -> None:
    """Write index.html and one trace.html per scenario (static; opens from disk, no network)."""
    raise typer.Exit(view_command(output_dir))


@app.command("serve")
@friendly
def serve_cmd(
    output_dir: Path = typer.Option(..., "--output-dir", help="A run's output directory."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: loopback only)."),
    port: int = typer.Option(0, "--port", help="Port (0: a free one; the URL is printed)."),
) -> None:
    """Serve the viewer live: pages regenerate as results land and open pages update themselves."""
    raise typer.Exit(serve_command(output_dir, host, port))
