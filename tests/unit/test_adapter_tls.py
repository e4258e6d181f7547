"""AdapterClient shares one TLS context: a fresh one per client (httpx's default) loads the CA
bundle every time and made a long run's memory grow with every scenario."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gaia2_runner.sandbox.adapter import AdapterClient, shared_tls_context


class Status(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        assert self.headers["Authorization"] == "Bearer tok"
        body = json.dumps({"status": "running", "turns": [{"turn": i} for i in range(20)]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Status)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def rss_kb() -> int:
    line = next(ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("VmRSS:"))
    return int(line.split()[1])


def test_clients_share_one_tls_context(server: str):
    with (
        AdapterClient(server, "tok", request_timeout=30) as a,
        AdapterClient(server, "tok", request_timeout=30) as b,
    ):
        assert a.get_status()["status"] == "running" and b.get_status()["turns"][19] == {"turn": 19}
        contexts = {id(c._http._transport._pool._ssl_context) for c in (a, b)}  # httpx internals
    assert contexts == {id(shared_tls_context())}


def test_memory_stays_flat_over_many_clients_on_worker_threads(server: str):
    """What a run does per scenario, 4 at a time: before the shared context, RSS grew 11-13 %
    between client 20 and 400; now it moves by well under 1 %."""
    lock, done, samples = threading.Lock(), [0], {}

    def worker() -> None:
        while True:
            with lock:
                if done[0] >= 400:
                    return
            with AdapterClient(server, "tok", request_timeout=30) as client:  # a loaded machine is slow
                for _ in range(5):
                    client.get_status()
            with lock:
                done[0] += 1
                if done[0] in (20, 400):
                    samples[done[0]] = rss_kb()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert samples[400] <= samples[20] * 1.05, samples
