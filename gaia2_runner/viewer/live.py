"""`serve`: build once, then watch the tree and re-render only what the changed files feed."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import watchfiles

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.layout import INDEX_FILE, TRACE_PAGE_FILE, VIEWER_DIR
from gaia2_runner.output.read.verdicts import CURRENT

from . import _site
from .render import url_path
from .server import Broker, make_server
from .site import Site

OUR_FILES = (TRACE_PAGE_FILE, INDEX_FILE)
RESCAN_S = 30.0  # quiet-time safety net for events a watcher can miss (network filesystems)


def ignore_own_output(change: watchfiles.Change, path: str) -> bool:
    """The watcher must not react to the pages it writes (that would loop)."""
    name = Path(path).name
    return not (
        name in OUR_FILES
        or name.endswith(".viewer-tmp")
        or f"/{VIEWER_DIR}/" in path.replace("\\", "/") + "/"
    )


def serve(
    output_dir: Path,
    host: str,
    port: int,
    say: Callable[[str], None] = print,
    stop: threading.Event | None = None,
    verdicts: str = CURRENT,
) -> int:
    """Bind first (a port in use fails at once, before the first full build), then build, then
    watch. Ctrl-C at any point of that, start-up included, ends in the same clean stop."""
    root = Path(output_dir).resolve()
    stop = stop or threading.Event()
    broker = Broker()
    try:
        server = make_server(root, host, port, broker)
    except (
        OSError,
        OverflowError,
        ValueError,
    ) as exc:  # in use, not ours to bind, no such host, out of range
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise Gaia2Error(f"cannot serve on {host}:{port}: {reason}") from None
    gate = _ServeGate(server)
    try:
        site = _site(root, verdicts)
        site.refresh()
        threading.Thread(target=gate.serve, name="viewer-http", daemon=True).start()
        shown_host = f"[{host}]" if ":" in host else host
        say(f"serving {root} at http://{shown_host}:{server.server_address[1]}/index.html (Ctrl-C to stop)")
        _watch(root, site, broker, stop)
    except KeyboardInterrupt:
        pass
    finally:
        broker.close()
        gate.close()
    say("stopped")
    return 0


class _ServeGate:
    """Runs serve_forever unless closing came first, and closes either way without a race.

    Ctrl-C can land while Thread.start() still waits for the thread, when is_alive() is False
    although serve_forever is about to run on a socket we would then close under it. Whether it
    runs is decided under a lock: shutdown() only when it will run (before that, shutdown() would
    wait forever), never a closed socket under it."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._lock = threading.Lock()
        self._closing = False
        self._serving = False

    def serve(self) -> None:
        with self._lock:
            if self._closing:
                return
            self._serving = True
        self.server.serve_forever()

    def close(self) -> None:
        with self._lock:
            self._closing = True
            serving = self._serving
        if serving:
            self.server.shutdown()
        self.server.server_close()


def _watch(root: Path, site: Site, broker: Broker, stop: threading.Event) -> None:
    last_full = 0.0  # a full rescan when the watcher starts catches writes made before it was ready
    for changes in watchfiles.watch(
        root,
        watch_filter=ignore_own_output,
        stop_event=stop,
        debounce=400,
        step=100,
        rust_timeout=1000,
        yield_on_timeout=True,
    ):
        if changes:
            pages = site.refresh([Path(p) for _, p in changes])
        elif time.monotonic() - last_full > RESCAN_S:
            pages, last_full = site.refresh(), time.monotonic()
        else:
            continue
        if pages:
            broker.publish([url_path(p) for p in pages])  # named as the pages name themselves (data-page)
