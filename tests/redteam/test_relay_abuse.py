"""Red team against the daemon's model relay (real HTTP, no container): the relay is the runner's
witness of provider outages, so nothing the agent sends through it may fake one."""

from __future__ import annotations

import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from gaia2_container.daemon.http.server import DaemonServer  # noqa: E402
from gaia2_container.daemon.provider.ledger import ProviderLedger  # noqa: E402
from gaia2_container.daemon.relay import Relay, serve_relay  # noqa: E402
from relay_probe import PROBE_MARKER, probe_of  # noqa: E402

pytestmark = pytest.mark.redteam


class Provider(BaseHTTPRequestHandler):
    """A provider that answers with the status the query names: /v1/chat/completions?status=503 -> 503.
    It counts the requests that reach it (`seen`). The runner's own probe gets `probe_status`: the
    provider's state, which a test sets where it means a real outage."""

    seen: list[str] = []
    probe_status = 200

    def log_message(self, *_args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if PROBE_MARKER in body:
            code = Provider.probe_status
        else:
            Provider.seen.append(self.path)
            code = int(self.path.rsplit("status=", 1)[-1]) if "status=" in self.path else 200
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


@pytest.fixture
def relay():
    Provider.seen, Provider.probe_status = [], 200
    provider = DaemonServer(("127.0.0.1", 0), Provider)  # its deep queue: the flood arrives at once
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    upstream = f"http://127.0.0.1:{provider.server_address[1]}/v1"
    witness = Relay(upstream, ledger=ProviderLedger(probe=probe_of(upstream)))
    server = serve_relay(witness, "127.0.0.1", 0)
    yield witness, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    provider.shutdown()


def raw(base: str, target: str) -> str:
    """One request with a hand-written request target; returns the status line."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST {target} HTTP/1.0\r\nContent-Length: 2\r\n\r\n{{}}".encode())
        return sock.makefile("rb").readline().decode()


def test_the_agents_own_bad_requests_never_count_as_an_outage(relay) -> None:
    witness, base = relay
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
        for code in (400, 401, 404, 422):  # the agent's mistakes, however many
            for _ in range(3):
                assert http.post(f"/chat/completions?status={code}", json={}).status_code == code
    assert witness.provider_unavailable() is None
    # Request targets that would leave the configured endpoint are refused and not recorded.
    unreachable = "127.0.0.1:9"  # nothing listens there: a fake outage if the relay went there
    for target in (f"@{unreachable}/x", f"http://{unreachable}/x", "*"):
        for _ in range(3):
            assert raw(base, target).split()[1] == "400", target
    # "//host/x" is folded to "/host/x" by the HTTP server itself: below the endpoint, no API path.
    assert raw(base, f"//{unreachable}/x").split()[1] == "404"
    assert witness.provider_unavailable() is None


def test_a_real_outage_is_witnessed(relay) -> None:
    witness, base = relay
    Provider.probe_status = 503  # down for the runner's own request too
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
        assert http.post("/chat/completions?status=503", json={}).status_code == 503
        assert witness.provider_unavailable() is None  # one failure is not an outage
        assert http.post("/chat/completions?status=503", json={}).status_code == 503
        assert "HTTP 503" in (witness.provider_unavailable() or "")
        assert http.post("/chat/completions", json={}).status_code == 200  # recovered
    assert witness.provider_unavailable() is None


def test_rate_limits_after_the_agents_own_flood_are_no_outage(relay) -> None:
    """An agent failing its task could flood the provider into 429s, then answer: without this rule
    the run would become an infrastructure error, and `--retry` would give it a second try. At once
    or one by one, before or after a pause: once it flooded, its 429s are its own for the run."""
    from gaia2_container.daemon.relay import proxy as relay_module

    witness, base = relay
    Provider.probe_status = 429  # the key's rate limit: the runner's own request meets it too
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
        for _ in range(2):  # before any flood, two 429s in a row are a witnessed outage
            assert http.post("/chat/completions?status=429", json={}).status_code == 429
        assert "HTTP 429" in (witness.provider_unavailable() or "")
        with ThreadPoolExecutor(max_workers=relay_module.BURST_LIMIT) as pool:  # all at once
            codes = list(
                pool.map(
                    lambda _: http.post("/chat/completions", json={}).status_code,
                    range(relay_module.BURST_LIMIT),
                )
            )
        assert codes == [200] * relay_module.BURST_LIMIT
        for _ in range(5):  # the flood's own rate limits
            assert http.post("/chat/completions?status=429", json={}).status_code == 429
        assert witness.provider_unavailable() is None
        # A server error or an unreachable provider is no flood's doing: still an outage.
        assert http.post("/chat/completions?status=503", json={}).status_code == 503
        assert http.post("/chat/completions?status=502", json={}).status_code == 502
        assert "HTTP 502" in (witness.provider_unavailable() or "")


def test_a_fast_honest_loop_still_has_its_dead_server_witnessed(relay) -> None:
    """A local model answering in a blink: many requests, then the server fails with 5xx."""
    from gaia2_container.daemon.relay import proxy as relay_module

    witness, base = relay
    Provider.probe_status = 500
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
        for _ in range(relay_module.BURST_LIMIT * 2):
            assert http.post("/chat/completions", json={}).status_code == 200
        for _ in range(2):
            assert http.post("/chat/completions?status=500", json={}).status_code == 500
    assert "HTTP 500" in (witness.provider_unavailable() or "")


def test_server_errors_off_the_model_calls_make_no_outage(relay) -> None:
    """5xx answers from a model list or a token count (paths the relay forwards) are not a provider
    outage: a failing agent cannot turn its run into an infrastructure error (a rerun) that way."""
    witness, base = relay
    Provider.probe_status = 503
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
        for path in ("/models", "/v1/models/gpt-5", "/v1/messages/count_tokens") * 2:
            assert http.post(f"{path}?status=503", json={}).status_code == 503
        assert witness.provider_unavailable() is None
        assert http.post("/chat/completions?status=503", json={}).status_code == 503
        assert http.post("/models?status=503", json={}).status_code == 503  # breaks no streak either
        assert http.post("/chat/completions?status=503", json={}).status_code == 503
    assert "HTTP 503" in (witness.provider_unavailable() or "")


def test_an_outage_only_the_agents_requests_meet_is_the_agents(relay) -> None:
    """Server errors the agent's own requests provoke (an oversized body the front end drops, a
    parameter that crashes the server) while the provider answers the runner's own request: no
    outage, no rerun to buy; the provider's words go into the run's note."""
    witness, base = relay
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
        for _ in range(4):
            assert http.post("/chat/completions?status=502", json={}).status_code == 502
    assert witness.provider_unavailable() is None
    assert "HTTP 502" in (witness.ledger.notes() or "") and "counts as the agent's" in (
        witness.ledger.notes() or ""
    )
    assert witness.ledger.summary()["confirmed_unavailable"] == 0  # the job keeps its concurrency
