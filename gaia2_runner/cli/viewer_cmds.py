"""The `view` and `serve` commands as plain functions; cli.py wraps them with typer options.

Both end in one `error:` line (exit 2) for what the user can fix, never a traceback: a bad
directory or port, a port in use, an output directory the pages cannot be written into.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from gaia2_runner.errors import Gaia2Error


def _check(output_dir: Path) -> Path | None:
    path = Path(output_dir).expanduser()
    if not path.is_dir():
        _error(f"output directory {path} does not exist: pass the --output-dir of a run")
        return None
    return path


def _error(message: str) -> int:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def view_command(output_dir: Path) -> int:
    """Write index.html and one trace.html per scenario into OUTPUT_DIR, viewable offline.

    Works on single-scenario, dataset and pass@k layouts, and on runs still in progress. Only
    scenarios whose files changed since the last view are re-read. Broken or hostile files cost
    their scenario's page (shown raw, with a warning), never the command.
    """
    from gaia2_runner.viewer import build

    path = _check(output_dir)
    if path is None:
        return 2
    started = time.monotonic()
    try:
        site = build(path)
    except Gaia2Error as exc:
        return _error(exc.message)
    notes = len(site.page_problems) + len(site.scan_warnings)
    print(f"wrote {path / 'index.html'} ({len(site.rows)} scenario runs, {time.monotonic() - started:.1f}s)"
          + (f"; {notes} warning(s) shown at the top of the index" if notes else ""))
    return 0


def serve_command(output_dir: Path, host: str = "127.0.0.1", port: int = 0) -> int:
    """Serve OUTPUT_DIR over HTTP and keep its pages up to date while a run writes into it.

    Binds to 127.0.0.1 by default (port 0 picks a free port; the URL is printed). Pages reload by
    themselves when their scenario changes. Ctrl-C stops it, also while it is starting.
    """
    try:
        if not 0 <= port <= 65535:
            return _error(f"--port {port} is not a TCP port: use 1-65535, or 0 for a free one")
        path = _check(output_dir)
        if path is None:
            return 2
        from gaia2_runner.viewer.live import serve

        return serve(path, host, port, say=lambda line: print(line, flush=True))
    except Gaia2Error as exc:
        return _error(exc.message)
    except KeyboardInterrupt:  # Ctrl-C before serve() could take it over (while importing, binding …)
        print("stopped", flush=True)
        return 0
