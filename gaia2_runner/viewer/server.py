"""HTTP for `serve`: static files from the output directory plus a server-sent-events feed.

Every path is checked against the output root after decoding, so `..`, `%2e%2e` and symlinks
cannot reach files outside it; only regular files are opened (never a FIFO), with O_NOFOLLOW.
Only the viewer's own pages are served as HTML: every other file (logs, JSON, anything someone
put there) is text/plain with `nosniff`, so it shows in the browser and can never run as a page.
Directories without index.html are 404 (no listings).
"""

from __future__ import annotations

import email.utils
import os
import posixpath
import queue
import stat
import sys
import threading
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

from gaia2_runner.output.layout import INDEX_FILE, TRACE_PAGE_FILE

EVENTS_PATH = "/__events"
KEEPALIVE_S = 15.0
TEXT = "text/plain; charset=utf-8"
TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
PAGES = (INDEX_FILE, TRACE_PAGE_FILE)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)
_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def content_type(path: Path) -> str:
    if path.name in PAGES:
        return "text/html; charset=utf-8"
    return TYPES.get(path.suffix.lower(), TEXT)


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
    _length = 0

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        if urlsplit(self.path).path == EVENTS_PATH:
            self._stream()
        elif self._allowed():
            # Never answer 304 (send_head ignores If-Modified-Since): Last-Modified has one-second
            # resolution, so a page rewritten within the second it was first fetched would stay stale.
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if self._allowed():
            super().do_HEAD()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", CSP)
        super().end_headers()

    def translate_path(self, path: str) -> str:
        """The stdlib's mapping, but names that are not UTF-8 (the pages link them by their bytes)
        decode to the same surrogate-escaped str as os.listdir gives, instead of failing."""
        path = path.split("?", 1)[0].split("#", 1)[0]
        trailing = path.rstrip().endswith("/")
        words = [w for w in posixpath.normpath(unquote(path, errors="surrogateescape")).split("/") if w]
        result = str(self.root)
        for word in words:
            if os.path.dirname(word) or word in (os.curdir, os.pardir):
                continue
            result = os.path.join(result, word)
        return result + "/" if trailing else result

    def send_head(self) -> BinaryIO | None:
        """SimpleHTTPRequestHandler.send_head without listings, links, special files or guessed types."""
        target = Path(self.translate_path(self.path))
        if target.is_dir():
            raw, _, query = self.path.split("#", 1)[0].partition("?")
            if not raw.endswith("/"):
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                # One leading slash: "//host/" would send the browser to another site.
                self.send_header("Location", "/" + raw.lstrip("/") + "/" + (f"?{query}" if query else ""))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            target = target / INDEX_FILE
        try:
            fd = os.open(target, _OPEN)
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        handle = os.fdopen(fd, "rb")
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            handle.close()
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type(target))
        self.send_header("Content-Length", str(st.st_size))
        self.send_header("Last-Modified", email.utils.formatdate(st.st_mtime, usegmt=True))
        self.end_headers()
        self._length = st.st_size
        return handle

    def copyfile(self, source: BinaryIO, outputfile: BinaryIO) -> None:  # type: ignore[override]
        """Exactly Content-Length bytes: a log that grows while it is sent must not break the framing."""
        left = self._length
        while left > 0:
            chunk = source.read(min(left, 1 << 16))
            if not chunk:
                break
            outputfile.write(chunk)
            left -= len(chunk)

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
        q = (
            self.broker.subscribe()
        )  # before the headers: once the page sees the stream open, it gets every change
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
    request_queue_size = 64  # a browser opens several connections at once; the default 5 resets some

    def handle_error(self, request: object, client_address: object) -> None:
        """A browser that goes away mid-response is normal; nothing else should happen, and if it
        does, one line (the monitor keeps running) instead of socketserver's traceback."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, (ConnectionError, TimeoutError)):
            print(f"warning: a request from {client_address} failed: {exc!r}", file=sys.stderr)


def make_server(root: Path, host: str, port: int, broker: Broker) -> ViewerServer:
    root = Path(root).resolve()
    handler = type("BoundHandler", (Handler,), {"root": root, "broker": broker})
    return ViewerServer((host, port), partial(handler, directory=str(root)))
