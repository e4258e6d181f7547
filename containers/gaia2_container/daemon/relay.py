"""The model relay: the agent's LLM requests pass through the daemon on their way to the provider.

It runs in the daemon (root), so the agent can use it but not alter it or what it records. It is
the runner's own witness of provider failures: an agent that exits saying "the provider is down"
is believed only when the relay saw the provider fail (docs/container-contract.md). Bodies are
passed through byte for byte (streams included), in both directions, except that the relay asks
the provider for an uncompressed answer (`Accept-Encoding: identity`) so that its record is
readable. With a `RelayTrace` it also records every call into the run's trace.jsonl
(relay_trace.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

import httpx

from .. import contract
from .http_api import IDLE_CONNECTION_S, DaemonServer
from .relay_trace import Capture, RelayTrace

log = logging.getLogger("gaia2.relay")

# Hop-by-hop headers (RFC 9110 7.6.1) and those the relay recomputes.
_DROP_REQUEST = {"host", "connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
                 "transfer-encoding", "content-length", "accept-encoding"}
_DROP_RESPONSE = _DROP_REQUEST - {"accept-encoding"}
# A failure of the provider, not of the request: server errors, overload, rate limits.
UNAVAILABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 520, 521, 522, 524, 529})
# How many failures in a row, at the end, count as "the provider is unavailable".
UNAVAILABLE_STREAK = 2
# A flood provokes rate limits: once the agent has sent more than BURST_LIMIT requests within
# BURST_WINDOW_S (at once or one after another), a rate limit (429) is its own doing for the rest of
# the run, never evidence of an outage: an agent must not turn a run it is failing into an
# infrastructure error, and so a --retry. Server errors and an unreachable provider still count
# (a flood does not crash a provider, and a fast honest loop must still see its server die). Not a
# proof: docs/container-contract.md says what it leaves open.
BURST_LIMIT = 30
BURST_WINDOW_S = 120.0
RATE_LIMITED = frozenset({429})
MAX_REQUEST_BYTES = 64 << 20


@dataclass(frozen=True)
class Outcome:
    url: str
    status: int | None  # None: the provider could not be reached
    error: str | None
    duration_s: float
    bursting: bool = False  # sent after the agent's own flood (BURST_LIMIT)

    @property
    def unavailable(self) -> bool:
        if self.bursting and self.status in RATE_LIMITED:
            return False
        return self.status is None or self.status in UNAVAILABLE_STATUSES

    def describe(self) -> str:
        if self.status is None:
            return f"provider error: cannot reach {self.url}: {self.error}"
        return f"provider error: HTTP {self.status} from {self.url}"


class Relay:
    """Forwards every request under its root to `upstream` + the same path and query."""

    def __init__(self, upstream: str, record: Callable[[Outcome], None] | None = None,
                 timeout_s: float = 600.0, trace: RelayTrace | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.record = record
        self.trace = trace
        self.client = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=30.0), follow_redirects=False)
        self._outcomes: deque[Outcome] = deque(maxlen=64)
        self._sent: deque[float] = deque(maxlen=BURST_LIMIT + 1)  # when the last requests were sent
        self._flooded = False
        self._lock = threading.Lock()

    def provider_unavailable(self) -> str | None:
        """Why the provider counts as unavailable, from what the relay itself saw (else None):
        the last UNAVAILABLE_STREAK requests all failed for availability reasons."""
        with self._lock:
            last = list(self._outcomes)[-UNAVAILABLE_STREAK:]
        if len(last) == UNAVAILABLE_STREAK and all(o.unavailable for o in last):
            return last[-1].describe()
        return None

    def _note_sent(self) -> bool:
        """Count one request; whether the agent has flooded (more than BURST_LIMIT in the window,
        now or earlier in the run: a rate limit can outlast a pause)."""
        now = time.monotonic()
        with self._lock:
            self._sent.append(now)
            if len(self._sent) > BURST_LIMIT and now - self._sent[0] <= BURST_WINDOW_S:
                self._flooded = True
            return self._flooded

    def _remember(self, outcome: Outcome) -> None:
        with self._lock:
            self._outcomes.append(outcome)
        if self.record is not None:
            try:
                self.record(outcome)
            except Exception:  # noqa: BLE001 - recording must never break the agent's call
                log.exception("recording a relay outcome failed")

    def forward(self, handler: "RelayHandler") -> None:
        method = handler.command
        length = int(handler.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            handler.send_error(413, "request too large for the relay")
            return
        if not handler.path.startswith("/") or handler.path.startswith("//"):
            # Only paths below the configured endpoint: "@host/…" or "http://host/…" would send
            # the request elsewhere, and a host the agent picks could fake a provider outage.
            handler.send_error(400, "the relay forwards paths below the configured endpoint only")
            return
        chunked = "chunked" in (handler.headers.get("Transfer-Encoding") or "").lower()
        body = _read_chunked(handler) if chunked else handler.rfile.read(length) if length else b""
        if body is None:
            handler.send_error(413 if chunked else 400, "request too large or badly chunked for the relay")
            return
        url = self.upstream + handler.path
        headers = [(k, v) for k, v in handler.headers.items() if k.lower() not in _DROP_REQUEST]
        headers.append(("Accept-Encoding", "identity"))  # a readable record; httpx would ask for gzip
        bursting = self._note_sent()
        started = time.monotonic()
        wall_started = time.time()
        sent = Capture()
        sent.add(body)
        received = Capture()
        try:
            request = self.client.build_request(method, url, headers=headers, content=body)
            response = self.client.send(request, stream=True)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, httpx.LocalProtocolError) as exc:
            # The agent's request was malformed: its fault, never evidence against the provider.
            handler.send_error(400, f"relay: bad request: {type(exc).__name__}")
            return
        except httpx.HTTPError as exc:
            outcome = Outcome(url, None, f"{type(exc).__name__}: {exc}"[:300], time.monotonic() - started, bursting)
            self._remember(outcome)
            self._trace(handler.path, url, wall_started, outcome, sent, received, None)
            handler.send_response(502)
            handler.send_header("Content-Type", "application/json")
            handler.end_headers()
            handler.wfile.write(b'{"error": "relay: cannot reach the provider"}')
            return
        try:
            handler.send_response(response.status_code)
            for key, value in response.headers.multi_items():
                if key.lower() not in _DROP_RESPONSE:
                    handler.send_header(key, value)
            handler.end_headers()
            for chunk in response.iter_raw():  # raw: compressed bodies stay compressed, as sent
                received.add(chunk)
                handler.wfile.write(chunk)
                handler.wfile.flush()
            broke = None
        except (httpx.HTTPError, OSError) as exc:
            log.warning("relay stream from %s broke: %s", url, exc)
            broke = f"stream broke: {type(exc).__name__}: {exc}"[:300]
        finally:
            response.close()
            outcome = Outcome(url, response.status_code, None, time.monotonic() - started, bursting)
            self._remember(outcome)
        self._trace(handler.path, url, wall_started, outcome, sent, received,
                    response.headers.get("content-encoding"), broke)

    def _trace(self, path: str, url: str, wall_started: float, outcome: Outcome, sent: Capture,
               received: Capture, content_encoding: str | None, broke: str | None = None) -> None:
        if self.trace is None:
            return
        try:
            self.trace.record(url=url, path=path, started=wall_started, latency_ms=outcome.duration_s * 1000,
                              http_status=outcome.status, request=sent, response=received,
                              content_encoding=content_encoding, error=outcome.error or broke)
        except Exception:  # noqa: BLE001 - recording must never break the agent's call
            log.exception("recording a relay call in the trace failed")


def _read_chunked(handler: "RelayHandler") -> bytes | None:
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


class RelayHandler(BaseHTTPRequestHandler):
    relay: Relay
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes: streams pass as they come
    timeout = IDLE_CONNECTION_S  # an agent that neither sends nor reads for this long is let go

    def log_message(self, fmt: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), fmt % args)

    def _handle(self) -> None:
        self.relay.forward(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


def serve_relay(relay: Relay, host: str, port: int) -> DaemonServer:
    handler = type("BoundRelayHandler", (RelayHandler,), {"relay": relay})
    server = DaemonServer((host, port), handler)
    threading.Thread(target=server.serve_forever, name="relay", daemon=True).start()
    log.info("model relay on %s:%s -> %s", host, port, relay.upstream)
    return server


def start_for_agent(environ: dict[str, str] | Any, record: Callable[[Outcome], None] | None = None,
                    defaults: dict[str, str] | None = None, trace_path: Any = None
                    ) -> tuple[Relay | None, dict[str, str]]:
    """Start the relay in front of the agent's configured provider; returns it and the variables
    that point the agent at it ((None, {}) when the agent names no provider). `defaults`: the
    upstream per provider without a base URL (the built-in LLM runtime's when None). With
    `trace_path` it records every call there (`relay.trace`)."""
    provider = (environ.get(contract.ENV_AGENT_PROVIDER) or "").strip().lower()
    if not provider:
        return None, {}
    if defaults is None:
        from ..runtimes.llm.settings import DEFAULT_BASE_URLS as defaults

    upstream = (environ.get(contract.ENV_AGENT_BASE_URL) or defaults.get(provider, "")).strip().rstrip("/")
    if not upstream:
        return None, {}
    trace = RelayTrace(trace_path, provider) if trace_path is not None else None
    relay = Relay(upstream, record, trace=trace)
    serve_relay(relay, "127.0.0.1", contract.RELAY_PORT)
    return relay, {contract.ENV_AGENT_BASE_URL: f"http://127.0.0.1:{contract.RELAY_PORT}",
                   contract.ENV_AGENT_PUBLIC_BASE_URL: upstream}
