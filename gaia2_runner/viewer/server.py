"""HTTP for `serve`: static files from the output directory plus a server-sent-events feed.

Every path is checked against the output root after decoding, so `..`, `%2e%2e` and symlinks
cannot reach files outside it.
"""

from __future__ import annotations

import os
import queue
import threading
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

EVENTS_PATH = "/__events"
KEEPALIVE_S = 15.0


class Broker:
    """Fans out 'this page changed' messages to every open page."""

    def __init__(self) -> None:
        self._subscribers: list[queue.Queue[str | None]] = []
        self._lock = threading.Lock()
        self.closed = threading.Event()

    def subscribe(self) -> queue.Queue[str | None]:
        q: queue.Queue[str | None] = queue.Queue()
        with self._lock:
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[str | None]) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def publish(self, pages: list[str]) -> None:
        with self._lock:
            for q in self._subscribers:
                for page in pages:
                    q.put(page)

    def close(self) -> None:
        self.closed.set()
        with self._lock:
            for q in self._subscribers:
                q.put(None)


class Handler(SimpleHTTPRequestHandler):
    root: Path
    broker: Broker

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        if urlsplit(self.path).path == EVENTS_PATH:
            self._stream()
        elif self._allowed():
            # Last-Modified has one-second resolution: a page rewritten within the second it was
            # first fetched would be answered 304 and stay stale, so never answer conditionally.
            del self.headers["If-Modified-Since"]
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if self._allowed():
            super().do_HEAD()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _allowed(self) -> bool:
        raw = urlsplit(self.path).path
        decoded = unquote(raw)
        parts = decoded.replace("\\", "/").split("/")
        if ".." in parts or "\x00" in decoded:
            self.send_error(HTTPStatus.FORBIDDEN, "path outside the output directory")
            return False
        target = Path(self.translate_path(self.path)).resolve()
        if target != self.root and self.root not in target.parents:
            self.send_error(HTTPStatus.FORBIDDEN, "path outside the output directory")
            return False
        return True

    def _stream(self) -> None:
        q = self.broker.subscribe()  # before the headers: once the page sees the stream open, it gets every change
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "keep-alive")
        self.end_headers()
        try:
            self.wfile.write(b": connected\n\n")
            self.wfile.flush()
            while not self.broker.closed.is_set():
                try:
                    page = q.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    self.wfile.write(b": ping\n\n")
                else:
                    if page is None:
                        break
                    self.wfile.write(f"data: {page}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            self.broker.unsubscribe(q)
            self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:  # quiet: the monitor prints its own lines
        if os.environ.get("GAIA2_VIEWER_HTTP_LOG"):
            super().log_message(format, *args)


class ViewerServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(root: Path, host: str, port: int, broker: Broker) -> ViewerServer:
    root = Path(root).resolve()
    handler = type("BoundHandler", (Handler,), {"root": root, "broker": broker})
    return ViewerServer((host, port), partial(handler, directory=str(root)))
