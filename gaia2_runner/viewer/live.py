"""`serve`: build once, then watch the tree and re-render only what the changed files feed."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable

import watchfiles

from gaia2_runner.output.layout import INDEX_FILE, TRACE_PAGE_FILE
from . import _site
from .scan import VIEWER_DIR
from .server import Broker, make_server

OUR_FILES = (TRACE_PAGE_FILE, INDEX_FILE)
RESCAN_S = 30.0  # quiet-time safety net for events a watcher can miss (network filesystems)


def ignore_own_output(change: watchfiles.Change, path: str) -> bool:
    """The watcher must not react to the pages it writes (that would loop)."""
    name = Path(path).name
    return not (name in OUR_FILES or name.endswith(".viewer-tmp") or f"/{VIEWER_DIR}/" in path.replace("\\", "/") + "/")


def serve(output_dir: Path, host: str, port: int, say: Callable[[str], None] = print,
          stop: threading.Event | None = None) -> int:
    root = Path(output_dir).resolve()
    site = _site(root)
    site.refresh()
    broker = Broker()
    server = make_server(root, host, port, broker)
    thread = threading.Thread(target=server.serve_forever, name="viewer-http", daemon=True)
    thread.start()
    shown_host = f"[{host}]" if ":" in host else host
    say(f"serving {root} at http://{shown_host}:{server.server_address[1]}/index.html (Ctrl-C to stop)")
    stop = stop or threading.Event()
    try:
        last_full = 0.0  # a full rescan when the watcher starts catches writes made before it was ready
        for changes in watchfiles.watch(root, watch_filter=ignore_own_output, stop_event=stop, debounce=400,
                                        step=100, rust_timeout=1000, yield_on_timeout=True):
            if changes:
                pages = site.refresh([Path(p) for _, p in changes])
            elif time.monotonic() - last_full > RESCAN_S:
                pages, last_full = site.refresh(), time.monotonic()
            else:
                continue
            if pages:
                broker.publish(pages)
    except KeyboardInterrupt:
        pass
    finally:
        broker.close()
        server.shutdown()
        server.server_close()
    say("stopped")
    return 0
