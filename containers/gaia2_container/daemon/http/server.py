"""The two HTTP faces of the daemon: the adapter contract (for the runner) and the tool API (for the agent).

Plain stdlib servers: the daemon must not depend on anything beyond ARE's own requirements.
See docs/reference/container-contract.md for the request and response shapes. The adapter server is
built with a bearer token: the agent shares the container's network namespace, so without one it
could read the run's state and post "user" messages to itself.
"""

from __future__ import annotations

import hmac
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from ...jsonable import BadAgentJson, json_text, parse_agent_json
from .connections import AGENT_CONNECTIONS, ConnectionBudget, refuse

log = logging.getLogger("gaia2.http")

MAX_BODY_BYTES = 8 << 20  # the largest tool call or notification body the daemon reads
# A connection silent this long is closed: idle keep-alive pools would otherwise hold slots of the
# agent's connection budget (connections.py) for good.
IDLE_CONNECTION_S = 300.0

Route = Callable[["JsonHandler", dict[str, list[str]], Any], tuple[int, Any]]


class JsonHandler(BaseHTTPRequestHandler):
    routes: dict[tuple[str, str], Route] = {}
    daemon_state: Any = None
    # When set, every route outside `public_routes` needs `Authorization: Bearer <token>`.
    token: str | None = None
    public_routes: frozenset[tuple[str, str]] = frozenset()
    on_request: Callable[[], None] | None = None  # told of every authorized request (the watchdog)
    protocol_version = "HTTP/1.1"
    timeout = IDLE_CONNECTION_S

    def authorized(self) -> bool:
        """True when no token is required or the request carries the right one."""
        if self.token is None:
            return True
        scheme, _, value = (self.headers.get("Authorization") or "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), self.token.encode())

    def log_message(self, fmt: str, *args: Any) -> None:  # noqa: D401 - quiet access log
        log.debug("%s %s", self.address_string(), fmt % args)

    def _dispatch(self, method: str) -> None:
        authorized = self.authorized()
        if self.on_request is not None and authorized:
            self.on_request()
        url = urlparse(self.path)
        if (method, url.path) not in self.public_routes and not authorized:
            # Checked before the body is read: close the connection rather than resync it.
            self.close_connection = True
            self._send(
                401,
                {"error": "missing or wrong adapter token"},
                {"WWW-Authenticate": "Bearer", "Connection": "close"},
            )
            return
        route = self.routes.get((method, url.path))
        if route is None:
            self._send(404, {"error": f"no route {method} {url.path}"})
            return
        body: Any = None
        if method == "POST":
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY_BYTES:
                # The agent can call the tool API: a claimed length must not make the daemon (and
                # with it the run) run out of memory. Nothing is read: close rather than resync.
                self.close_connection = True
                self._send(
                    413 if length > 0 else 400,
                    {"error": f"body must be 0 to {MAX_BODY_BYTES} bytes with a valid Content-Length"},
                    {"Connection": "close"},
                )
                return
            raw = self.rfile.read(length) if length else b""
            try:
                body = parse_agent_json(raw)  # lone surrogates become U+FFFD here (jsonable.py)
            except BadAgentJson as exc:
                self._send(400, {"error": str(exc)})
                return
        try:
            code, payload = route(self, parse_qs(url.query), body)
        except Exception as exc:  # noqa: BLE001 - a handler bug must not kill the server
            log.exception("handler failed: %s %s", method, url.path)
            code, payload = 500, {"error": f"{type(exc).__name__}: {exc}"}
        self._send(code, payload)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def _send(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json_text(payload).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def int_param(query: dict[str, list[str]], name: str, default: int) -> int:
    values = query.get(name)
    if not values:
        return default
    return int(values[0])  # ValueError is turned into 400 by callers


class DaemonServer(ThreadingHTTPServer):
    """A thread per connection and a deep accept queue: an agent may open many connections at once
    (parallel subagents, concurrent commands), and with the default queue of 5 some were reset.

    The agent's connections are bounded over all the servers of the process (`connections`), and
    when no thread can be started (the container's pids used up), a connection that is not the
    agent's is served in the accepting thread itself: the runner's polls always get an answer."""

    daemon_threads = True
    request_queue_size = 128
    budget: ConnectionBudget = AGENT_CONNECTIONS
    # How long a connection served inline may wait on its client, for handlers without a timeout
    # of their own (the daemon's have IDLE_CONNECTION_S, which applies instead).
    inline_timeout_s = 10.0

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.budget.admit(request):
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except RuntimeError:  # "can't start new thread"
            if self.budget.is_agents(request):
                self._refuse(request)
                return
            log.warning("no thread for a connection: served inline")
            request.settimeout(self.inline_timeout_s)
            self.process_request_thread(request, client_address)

    def _refuse(self, request: Any) -> None:
        refuse(request)
        self.shutdown_request(request)

    def shutdown_request(self, request: Any) -> None:
        self.budget.release(request)
        super().shutdown_request(request)


def serve(
    host: str,
    port: int,
    routes: dict[tuple[str, str], Route],
    state: Any,
    name: str,
    token: str | None = None,
    public_routes: frozenset[tuple[str, str]] = frozenset(),
    on_request: Callable[[], None] | None = None,
) -> ThreadingHTTPServer:
    """Serve `routes` in a background thread; with `token`, only `public_routes` answer without it.
    `on_request` hears of every request that carries the token (the runner's, never the agent's)."""
    attrs = {
        "routes": routes,
        "daemon_state": state,
        "token": token,
        "public_routes": public_routes,
        "on_request": staticmethod(on_request) if on_request is not None else None,
    }
    handler = type(f"{name}Handler", (JsonHandler,), attrs)
    server = DaemonServer((host, port), handler)
    threading.Thread(target=server.serve_forever, name=f"http-{name}", daemon=True).start()
    log.info("%s API listening on %s:%s", name, host, port)
    return server
