"""The daemon's adapter API over real HTTP, without a container: every route but a bare /health
wants the runner's bearer token, and the token never reaches the agent's environment."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from gaia2_container.daemon import main as daemon_main  # noqa: E402
from gaia2_container.daemon.agent.process import agent_environment  # noqa: E402
from gaia2_container.daemon.http.routes import ADAPTER_PUBLIC_ROUTES, ADAPTER_ROUTES, DaemonState  # noqa: E402
from gaia2_container.daemon.http.server import serve  # noqa: E402
from gaia2_container.daemon.session.recorder import EventRecorder  # noqa: E402
from gaia2_container.daemon.session.status import StatusBoard  # noqa: E402
from gaia2_contract import constants as contract

TOKEN = "t0k3n-for-the-runner"


class FakeSession:
    """Stands in for the ARE session: only what /notify and /messages touch."""

    def __init__(self) -> None:
        self.inbox: list[tuple[str, str]] = []

    def notify(self, message: str, sender: str) -> int:
        self.inbox.append((sender, message))
        return len(self.inbox) - 1

    def messages_after(self, after: int) -> list[dict]:
        return [{"index": 0, "content": "the agent's answer"}][after + 1 :]


@pytest.fixture
def adapter(tmp_path: Path):
    state = DaemonState(
        runtime="agent",
        status=StatusBoard(tmp_path / "status.json", "demo", "agent"),
        recorder=EventRecorder(tmp_path / "events.jsonl"),
    )
    server = serve(
        "127.0.0.1", 0, ADAPTER_ROUTES, state, "adapter", token=TOKEN, public_routes=ADAPTER_PUBLIC_ROUTES
    )
    base = f"http://127.0.0.1:{server.server_address[1]}"
    yield SimpleNamespace(state=state, base=base)
    server.shutdown()
    server.server_close()
    state.recorder.close()


def test_every_route_but_health_needs_the_token(adapter):
    adapter.state.session = session = FakeSession()
    good = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=adapter.base, trust_env=False, timeout=5) as http:
        for headers in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": f"Basic {TOKEN}"},
            {"Authorization": TOKEN},
        ):
            for method, path in (("GET", "/status"), ("GET", "/messages"), ("GET", "/nowhere")):
                resp = http.request(method, path, headers=headers)
                assert resp.status_code == 401 and resp.headers["WWW-Authenticate"] == "Bearer", (
                    headers,
                    path,
                )
            resp = http.post("/notify", json={"message": "injected", "sender": "user"}, headers=headers)
            assert resp.status_code == 401 and resp.json() == {"error": "missing or wrong adapter token"}
        assert session.inbox == []

        assert http.get("/status", headers=good).json()["scenario_id"] == "demo"
        assert http.get("/messages", headers=good).json()["messages"][0]["content"] == "the agent's answer"
        resp = http.post("/notify", json={"message": "from the runner"}, headers=good)
        assert resp.status_code == 202 and session.inbox == [("user", "from the runner")]
        assert http.get("/nowhere", headers=good).status_code == 404


def test_health_says_only_the_state_without_the_token(adapter):
    adapter.state.loaded = SimpleNamespace(scenario_id="demo")
    with httpx.Client(base_url=adapter.base, trust_env=False, timeout=5) as http:
        assert http.get("/health").status_code == 503
        adapter.state.ready.set()
        resp = http.get("/health")
        assert (resp.status_code, resp.json()) == (200, {"status": "ok"})
        full = http.get("/health", headers={"Authorization": f"Bearer {TOKEN}"}).json()
        assert full == {"status": "ok", "scenario_id": "demo", "runtime": "agent"}
        adapter.state.load_error = "scenario.json: secret detail"
        resp = http.get("/health")
        assert (resp.status_code, resp.json()) == (500, {"status": "error"})


def test_the_token_leaves_the_daemon_environment_and_never_reaches_the_agent(monkeypatch):
    monkeypatch.setenv(contract.ENV_ADAPTER_TOKEN, TOKEN)
    monkeypatch.setenv(contract.ENV_JUDGE_API_KEY, "sk-judge")
    monkeypatch.setenv(contract.ENV_AGENT_MODEL, "m")
    env = agent_environment()
    assert contract.ENV_ADAPTER_TOKEN not in env and contract.ENV_JUDGE_API_KEY not in env
    assert env[contract.ENV_AGENT_MODEL] == "m"
    assert daemon_main._adapter_token() == TOKEN
    assert contract.ENV_ADAPTER_TOKEN not in daemon_main.os.environ


def test_without_a_token_the_daemon_locks_the_adapter(monkeypatch):
    monkeypatch.delenv(contract.ENV_ADAPTER_TOKEN, raising=False)
    first, second = daemon_main._adapter_token(), daemon_main._adapter_token()
    assert len(first) >= 32 and first != second


def test_a_claimed_body_size_cannot_exhaust_the_daemon(adapter):
    """Tool and adapter APIs share the handler: a huge or bogus Content-Length is refused unread."""
    import socket

    from gaia2_container.daemon.http.server import MAX_BODY_BYTES

    adapter.state.session = FakeSession()
    host, port = adapter.base.removeprefix("http://").split(":")
    for length in (str(MAX_BODY_BYTES + 1), str(1 << 40), "-5", "lots"):
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(
                (
                    f"POST /notify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                    f"Content-Length: {length}\r\n\r\n{{}}"
                ).encode()
            )
            status_line = sock.makefile("rb").readline().decode()
        expected = "413" if length.isdigit() else "400"
        assert status_line.split()[1] == expected, (length, status_line)
    assert adapter.state.session.inbox == []
    with httpx.Client(base_url=adapter.base, trust_env=False, timeout=5) as http:  # still serving
        resp = http.post("/notify", json={"message": "ok"}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert resp.status_code == 202


def test_a_warm_container_takes_one_assignment_from_the_runner_alone(adapter):
    """POST /assign: token only, the scenario's variables only, once; a container started with its
    scenario (not warm) takes none."""
    good = {"Authorization": f"Bearer {TOKEN}"}
    assigned = {contract.ENV_SCENARIO_TIMEOUT: "30", contract.ENV_DEADLINE: "700"}
    with httpx.Client(base_url=adapter.base, trust_env=False, timeout=5) as http:
        resp = http.post("/assign", json={"env": assigned}, headers=good)
        assert resp.status_code == 409 and adapter.state.assignment is None  # not warm

        adapter.state.warm = True
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            assert http.post("/assign", json={"env": assigned}, headers=headers).status_code == 401
        for body in (
            {"env": {"GAIA2_AGENT_COMMAND": "sh -c id"}},  # only the scenario's own variables
            {"env": {contract.ENV_SCENARIO_TIMEOUT: 30}},
            {"env": {contract.ENV_SCENARIO_TIMEOUT: " "}},
            {"env": "GAIA2_DEADLINE=1"},
            ["env"],
        ):
            assert http.post("/assign", json=body, headers=good).status_code == 400, body
        assert not adapter.state.assigned.is_set()

        resp = http.post("/assign", json={"env": assigned}, headers=good)
        assert resp.status_code == 202 and adapter.state.assignment == assigned
        again = {contract.ENV_SCENARIO_TIMEOUT: "9999", contract.ENV_DEADLINE: "99999"}
        assert http.post("/assign", json={"env": again}, headers=good).status_code == 409
        assert adapter.state.assignment == assigned
