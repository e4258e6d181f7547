"""The recording proxy of scripts/are_parity.py: real HTTP in front of the one real model server.

Each side of a parity run (ARE's `are-benchmark`, the runner) and each scenario gets its own path
prefix (`/<tag>/...`), so the proxy knows whose request it forwards without reading it: the prefix
is stripped, the rest goes to that route's upstream unchanged (the body's bytes; the headers but
the hop-by-hop ones and Accept-Encoding, so that answers are recorded readable), and the answer
comes back as the upstream sends it (a stream chunk by chunk, as it arrives).
Every exchange is recorded in memory and appended to `<record_dir>/<tag>.jsonl`, bodies as text
(bytes that are not UTF-8 kept through surrogate escapes), so a report can be made again later.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

UPSTREAM_TIMEOUT_S = 1800  # longer than any client waits (LiteLLM: 600 s): the client decides
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
NOT_FORWARDED = HOP_BY_HOP | {"accept-encoding"}  # a compressed answer would be recorded unreadable
CHUNK = 65536


@dataclass
class Exchange:
    """One request and its answer, as they crossed the proxy."""

    method: str
    path: str  # below the route's prefix, as the upstream got it
    request: str
    status: int | None = None
    response: str = ""
    seconds: float = 0.0
    error: str | None = None  # the upstream or the client failed mid-way

    @property
    def request_bytes(self) -> bytes:
        return self.request.encode("utf-8", "surrogateescape")


def read_recording(path: Path) -> list[Exchange]:
    """A route's recording file ([] when it made no request)."""
    if not path.is_file():
        return []
    return [Exchange(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line]


class RecordingProxy:
    """`routes` maps a tag to its upstream base URL (`http://127.0.0.1:8080/v1`); `start()` serves in
    a daemon thread. A client reaches a route at `base_url(tag, host)`."""

    def __init__(
        self, routes: dict[str, str], record_dir: Path, host: str = "0.0.0.0", port: int = 0
    ) -> None:
        self.routes = dict(routes)
        self.record_dir = record_dir
        self.record_dir.mkdir(parents=True, exist_ok=True)
        self.exchanges: dict[str, list[Exchange]] = {tag: [] for tag in routes}
        self._lock = threading.Lock()
        self._inflight: dict[
            int, tuple[str, http.client.HTTPConnection]
        ] = {}  # id(exchange): (tag, upstream)
        self._aborted: set[int] = set()
        handler = type("Handler", (_Handler,), {"proxy": self})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]

    def start(self) -> None:
        threading.Thread(target=self.httpd.serve_forever, name="parity-proxy", daemon=True).start()

    def stop(self) -> None:
        self.abort("")
        self.httpd.shutdown()
        self.httpd.server_close()

    def abort(self, prefix: str, wait: float = 10.0) -> int:
        """Close the upstream connections of the requests still in flight on the routes whose tag
        starts with `prefix`, and wait (up to `wait` s) until they are recorded; how many there were.
        A side whose run has ended (ARE's container stopped, the runner at its limit) leaves requests
        nobody will read; a one-slot server would go on computing them while the next side waits,
        and llama-server cancels a request whose connection closes."""
        with self._lock:
            victims = {
                key: connection for key, (tag, connection) in self._inflight.items() if tag.startswith(prefix)
            }
            self._aborted |= set(victims)
        for connection in victims.values():
            try:
                if connection.sock is not None:
                    connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(key in self._inflight for key in victims):
            time.sleep(0.05)
        return len(victims)

    def _track(self, key: int, tag: str, connection: http.client.HTTPConnection | None) -> bool:
        """Register (or, with None, forget) an upstream connection in flight; True when it was aborted."""
        with self._lock:
            if connection is not None:
                self._inflight[key] = (tag, connection)
                return False
            self._inflight.pop(key, None)
            aborted = key in self._aborted
            self._aborted.discard(key)
            return aborted

    def base_url(self, tag: str, host: str) -> str:
        """The route's base URL for a client that reaches this machine as `host`: the upstream's
        own path under the tag, so the client's paths map one to one."""
        return f"http://{host}:{self.port}/{tag}{urlsplit(self.routes[tag]).path.rstrip('/')}"

    def record(self, tag: str, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges[tag].append(exchange)
            with (self.record_dir / f"{tag}.jsonl").open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(asdict(exchange)) + "\n")


class _Handler(BaseHTTPRequestHandler):
    proxy: RecordingProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: object) -> None:  # the recording is the log
        pass

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _forward(self) -> None:
        tag, _, rest = self.path.lstrip("/").partition("/")
        body = self._body()
        upstream = self.proxy.routes.get(tag)
        if upstream is None:
            self._fail(404, f"parity proxy: no route {tag!r}")
            return
        target = urlsplit(upstream)
        exchange = Exchange(self.command, "/" + rest, body.decode("utf-8", "surrogateescape"))
        started = time.monotonic()
        connection_class = (
            http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
        )
        connection = connection_class(target.netloc, timeout=UPSTREAM_TIMEOUT_S)
        received = bytearray()
        self.proxy._track(id(exchange), tag, connection)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in NOT_FORWARDED}
            connection.request(
                self.command,
                exchange.path,
                body=body,
                headers={**headers, "Host": target.netloc, "Content-Length": str(len(body))},
            )
            answer = connection.getresponse()
            exchange.status = answer.status
            self._relay(answer, received)
        except (OSError, http.client.HTTPException) as exc:
            exchange.error = f"{type(exc).__name__}: {exc}"
            self.close_connection = True
            if exchange.status is None:  # nothing sent to the client yet
                self._fail(502, f"parity proxy: upstream {target.netloc}: {exchange.error}")
        finally:
            connection.close()
            if self.proxy._track(id(exchange), tag, None):
                exchange.error = "aborted: its side's run had ended"
            exchange.response = bytes(received).decode("utf-8", "surrogateescape")
            exchange.seconds = round(time.monotonic() - started, 3)
            self.proxy.record(tag, exchange)

    def _relay(self, answer: http.client.HTTPResponse, received: bytearray) -> None:
        """The upstream's answer to the client: whole when its length is known, else in chunks as
        they come (a server-sent event stream)."""
        length = answer.getheader("Content-Length")
        self.send_response(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() not in HOP_BY_HOP:
                self.send_header(key, value)
        if length is not None and not answer.chunked:
            data = answer.read()
            received += data
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while chunk := answer.read1(CHUNK):
            received += chunk
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def _fail(self, status: int, message: str) -> None:
        data = json.dumps({"error": {"message": message}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
