"""The `view` and `serve` commands as plain functions; cli.py wraps them with typer options."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def _check(output_dir: Path) -> Path | None:
    path = Path(output_dir).expanduser()
    if not path.is_dir():
        print(f"error: output directory {path} does not exist: pass the --output-dir of a run", file=sys.stderr)
        return None
    return path


def view_command(output_dir: Path) -> int:
    """Write index.html and one trace.html per scenario into OUTPUT_DIR, viewable offline.

    Works on single-scenario, dataset and pass@k layouts, and on runs still in progress. Only
    scenarios whose files changed since the last view are re-read.
    """
    from gaia2_runner.viewer import build

    path = _check(output_dir)
    if path is None:
        return 2
    started = time.monotonic()
    site = build(path)
    print(f"wrote {path / 'index.html'} ({len(site.rows)} scenario runs, {time.monotonic() - started:.1f}s)")
    return 0


def serve_command(output_dir: Path, host: str = "127.0.0.1", port: int = 0) -> int:
    """Serve OUTPUT_DIR over HTTP and keep its pages up to date while a run writes into it.

    Binds to 127.0.0.1 by default (port 0 picks a free port; the URL is printed). Pages reload by
    themselves when their scenario changes. Ctrl-C stops it.
    """
    from gaia2_runner.viewer.live import serve

    path = _check(output_dir)
    if path is None:
        return 2
    try:
        return serve(path, host, port, say=lambda line: print(line, flush=True))
    except OSError as exc:
        print(f"error: cannot serve on {host}:{port}: {exc}", file=sys.stderr)
        return 2
