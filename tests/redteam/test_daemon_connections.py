"""The daemon's bound on the agent's open connections, over real loopback sockets, no container.

Here the test process plays both sides: a budget told that this process's uid is the agent's
refuses its connections past the limit; told another uid is, it never refuses one (the runner's
connections). When no thread can be started, a connection that is not the agent's is still
answered, in the accepting thread."""

from __future__ import annotations

import os
import socket
import socketserver
import threading
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from gaia2_container.daemon.http.connections import ConnectionBudget, read_sockets  # noqa: E402
from gaia2_container.daemon.http.server import DaemonServer  # noqa: E402
from polling import until

pytestmark = pytest.mark.redteam
LIMIT = 4


class Hello(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")


def serve(budget: ConnectionBudget):
    server = type("Bounded", (DaemonServer,), {"budget": budget})(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def servers():
    started = []
    yield lambda budget: started.append(serve(budget)) or started[-1]
    for server in started:
        server.shutdown()
        server.server_close()


def held(port: int, count: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]


def refused(conn: socket.socket, wait_s: float = 5.0) -> bool:
    """True when the server answers 503 and closes the connection within `wait_s`."""
    conn.settimeout(wait_s)
    data = b""
    try:
        while chunk := conn.recv(4096):
            data += chunk
    except OSError:
        return False
    return data.startswith(b"HTTP/1.1 503 ")


def get(port: int) -> str:
    resp = httpx.get(f"http://127.0.0.1:{port}/", timeout=5, trust_env=False)
    return resp.text if resp.status_code == 200 else str(resp.status_code)


def test_the_owner_of_a_loopback_peer_is_read_from_the_kernel():
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    conn, _ = listener.accept()
    try:
        sockets = read_sockets()
        assert sockets[(conn.getpeername(), conn.getsockname())][0] == os.getuid()
        assert (("127.0.0.1", 1), conn.getsockname()) not in sockets
    finally:
        for sock in (client, conn, listener):
            sock.close()


def test_the_agent_holds_no_more_than_the_limit_and_gets_a_slot_back_when_it_closes_one(servers):
    budget = ConnectionBudget(limit=LIMIT, agent_uid=os.getuid())
    port = servers(budget).server_address[1]
    first = held(port, LIMIT)
    extra = held(port, 3)
    assert all(refused(c) for c in extra)  # accepted in order: the first ones are in
    assert budget.refused == 3 and budget.open == LIMIT
    first.pop().close()
    assert until(lambda: budget.open < LIMIT)  # the handler thread sees the EOF and lets go
    assert get(port) == "hello"
    for conn in first + extra:
        conn.close()


def test_connections_that_are_not_the_agents_are_never_refused(servers):
    budget = ConnectionBudget(limit=LIMIT, agent_uid=os.getuid() + 1)
    port = servers(budget).server_address[1]
    crowd = held(port, LIMIT * 3)
    assert until(lambda: budget.open == len(crowd)) and budget.refused == 0
    assert get(port) == "hello"
    for conn in crowd:
        conn.close()


def test_without_threads_the_runner_is_answered_inline_and_the_agent_is_not(servers, monkeypatch):
    def no_thread(*_args: object) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(socketserver.ThreadingMixIn, "process_request", no_thread)
    runner_port = servers(ConnectionBudget(agent_uid=os.getuid() + 1)).server_address[1]
    assert get(runner_port) == "hello"
    agent_port = servers(ConnectionBudget(agent_uid=os.getuid())).server_address[1]
    assert get(agent_port) == "503"


def test_an_ipv6_socket_on_the_ipv4_listener_is_the_agents_too(servers):
    """An AF_INET6 client of ::ffff:127.0.0.1 is listed in /proc/net/tcp6, not tcp."""
    budget = ConnectionBudget(limit=LIMIT, agent_uid=os.getuid())
    port = servers(budget).server_address[1]
    first = held(port, LIMIT)
    v6 = socket.socket(socket.AF_INET6)
    v6.connect(("::ffff:127.0.0.1", port))
    assert refused(v6) and budget.refused == 1
    for conn in [*first, v6]:
        conn.close()


def test_a_local_peer_missing_from_the_tables_counts_as_the_agents(servers, tmp_path):
    budget = ConnectionBudget(limit=LIMIT, agent_uid=os.getuid() + 1, tables=(tmp_path / "no-table",))
    port = servers(budget).server_address[1]
    first = held(port, LIMIT)
    extra = held(port, 1)
    assert refused(extra[0]) and budget.refused == 1
    for conn in first + extra:
        conn.close()
