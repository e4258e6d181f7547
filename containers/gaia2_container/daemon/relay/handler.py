"""The relay's HTTP side: the handler every request comes in on, and reading what the agent
sent (a chunked body, its credentials) and whether it is still there."""

from __future__ import annotations

import json
import logging
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol
from urllib.parse import parse_qsl

from ..http.server import IDLE_CONNECTION_S, DaemonServer
from ..provider.faults import Request
from .key import CREDENTIAL_HEADERS, KEY_QUERY_PARAMS

log = logging.getLogger("gaia2.relay")

MAX_REQUEST_BYTES = 64 << 20


def agent_hung_up(handler: RelayHandler) -> bool:
    """Whether the agent closed its connection (its end reads as EOF) while the relay waited."""
    try:
        readable, _, _ = select.select([handler.connection], [], [], 0)
        return bool(readable) and handler.connection.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def request_facts(handler: RelayHandler, parsed: Any) -> Request:
    """What the ledger needs to know of a request: its path, parsed body and credentials."""
    credentials = [v for k, v in handler.headers.items() if k.lower() in CREDENTIAL_HEADERS]
    query = handler.path.partition("?")[2]
    credentials += [v for k, v in parse_qsl(query, keep_blank_values=True) if k in KEY_QUERY_PARAMS]
    return Request(handler.path, parsed, tuple(credentials))


def send_json(handler: RelayHandler, status: int, doc: Any) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()
    handler.wfile.write(json.dumps(doc).encode())


def read_chunked(handler: RelayHandler) -> bytes | None:
    """A request body sent with `Transfer-Encoding: chunked` (no Content-Length), at most
    MAX_REQUEST_BYTES; None when it is larger or malformed."""
    parts: list[bytes] = []
    total = 0
    try:
        while True:
            size = int(handler.rfile.readline(1024).split(b";")[0].strip(), 16)
            if size == 0:
                while handler.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(parts)
            total += size
            if size < 0 or total > MAX_REQUEST_BYTES:
                return None
            parts.append(handler.rfile.read(size))
            handler.rfile.readline(1024)
    except ValueError:
        return None


class Forwarder(Protocol):
    """What the handler needs of the relay (proxy.Relay): named here so the two import one way."""

    upstream: str

    def forward(self, handler: RelayHandler) -> None: ...


class RelayHandler(BaseHTTPRequestHandler):
    relay: Forwarder
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes: streams pass as they come
    timeout = IDLE_CONNECTION_S  # an agent that neither sends nor reads for this long is let go

    def log_message(self, fmt: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), fmt % args)

    def _handle(self) -> None:
        self.relay.forward(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


def serve_relay(relay: Forwarder, host: str, port: int) -> DaemonServer:
    handler = type("BoundRelayHandler", (RelayHandler,), {"relay": relay})
    server = DaemonServer((host, port), handler)
    threading.Thread(target=server.serve_forever, name="relay", daemon=True).start()
    log.info("model relay on %s:%s -> %s", host, port, relay.upstream)
    return server
