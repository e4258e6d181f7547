"""Red team against the relay over real HTTP (no container), issue 21 part 5: paths that would
leave the provider's API are refused before anything is forwarded, and the agent's placeholder is
swapped for the configured key in every credential style, so a call with the placeholder straight to
the provider gets 401 (tests/support/fake_llm checks keys)."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from fake_llm.server import FakeLLM  # noqa: E402
from gaia2_container.daemon.provider.paths import refusal  # noqa: E402
from gaia2_container.daemon.relay import Relay, serve_relay  # noqa: E402
from gaia2_container.daemon.relay.key import RunCredential, new_placeholder  # noqa: E402

pytestmark = pytest.mark.redteam
KEY = "sk-real-provider-KEY-31337"
TEXT = {"text": "hello"}
# Every way the attack or its variants could leave /v1: dot segments, encoded dots and
# slashes (either case), double encoding, back slashes, doubled slashes.
ESCAPES = (
    "/v1/../boom",
    "/v1/./chat/completions",
    "/../chat/completions",
    "/v1/%2e%2e/boom",
    "/v1/%2E%2E/boom",
    "/v1/..%2fboom",
    "/v1%2F..%2Fboom",
    "/v1/%252e%252e/boom",
    "/v1/..%5cboom",
    "/v1\\..\\boom",
    "/v1//chat/completions",
    "/chat/completions/..",
    "/v1/models/x%2f..%2f..:generateContent",
)


@pytest.fixture
def setup(tmp_path: Path):
    fake = FakeLLM({"default": [TEXT] * 20}, tmp_path / "requests.jsonl", host="127.0.0.1")
    fake.api_key = KEY
    fake.start()
    credential = RunCredential(new_placeholder(), KEY)
    relay = Relay(f"http://127.0.0.1:{fake.port}", credential=credential)
    server = serve_relay(relay, "127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    with httpx.Client(base_url=base, trust_env=False, timeout=10) as http:
        yield fake, relay, http, credential.placeholder, base
    server.shutdown()
    fake.stop()


def raw(base: str, target: str) -> tuple[int, bytes]:
    """One request with a hand-written request target (no client normalises it): (status, body)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            f"POST {target} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}".encode()
        )
        answer = sock.makefile("rb").read()
    return int(answer.split(b" ", 2)[1]), answer


@pytest.mark.parametrize("target", ESCAPES)
def test_paths_leaving_the_api_are_refused_before_the_provider(setup, target: str) -> None:
    fake, relay, _, _, base = setup
    status, answer = raw(base, target)
    assert status == 400 and b"gaia2_relay_refused" in answer, answer
    assert fake.requests == [] and relay.ledger.summary()["calls"] == 0


def test_only_api_paths_are_forwarded() -> None:
    for path in (
        "/chat/completions",
        "/v1/chat/completions?alt=json",
        "/responses",
        "/v1/messages?beta=true",
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        "/v1/models",
        "/models/gpt-5",
        "/v1/messages/count_tokens",
        "/v1beta/models/gemini-2.5-pro:countTokens",
    ):
        assert refusal(path) is None, path
    for path in (
        "/boom",
        "/v1/props",
        "/api/tags",
        "/v1/files",
        "/v1/chat/completions/x",
        "/status/503",
        "x",
    ):
        assert refusal(path) is not None, path


def test_the_placeholder_becomes_the_key_in_every_credential_style(setup) -> None:
    fake, relay, http, placeholder, _ = setup
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert (
        http.post(
            "/v1/chat/completions", json=chat, headers={"Authorization": f"Bearer {placeholder}"}
        ).status_code
        == 200
    )
    assert (
        http.post(
            "/v1/messages", json={**chat, "max_tokens": 9}, headers={"x-api-key": placeholder}
        ).status_code
        == 200
    )
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    path = "/v1beta/models/g:generateContent"
    assert http.post(path, json=gemini, headers={"x-goog-api-key": placeholder}).status_code == 200
    assert http.post(f"{path}?key={placeholder}", json=gemini).status_code == 200
    seen = fake.llm_requests()
    assert [r["headers"].get("authorization") for r in seen[:1]] == [f"Bearer {KEY}"]
    assert seen[1]["headers"]["x-api-key"] == KEY and seen[2]["headers"]["x-goog-api-key"] == KEY
    assert seen[3]["path"] == f"{path}?key={KEY}"
    # What the relay records names no key, neither the real one nor the placeholder in a query.
    assert relay.ledger.summary()["ok"] == 4 and relay.ledger.summary()["fault"] is None


def test_the_placeholder_is_worthless_without_the_relay(setup) -> None:
    fake, _, _, placeholder, _ = setup
    direct = httpx.post(
        f"http://127.0.0.1:{fake.port}/v1/chat/completions",
        json={"model": "m", "messages": []},
        headers={"Authorization": f"Bearer {placeholder}"},
        trust_env=False,
        timeout=10,
    )
    assert direct.status_code == 401 and "incorrect API key" in direct.text
    assert (
        httpx.post(
            f"http://127.0.0.1:{fake.port}/v1/chat/completions",
            json={"model": "m", "messages": []},
            headers={"Authorization": f"Bearer {KEY}"},
            trust_env=False,
            timeout=10,
        ).status_code
        == 200
    )


def test_a_key_of_the_agents_own_is_its_own_business(setup) -> None:
    """Forwarded as sent: the provider refuses it, and that refusal is no configuration fault."""
    fake, relay, http, _, _ = setup
    answer = http.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": []},
        headers={"Authorization": "Bearer sk-made-up"},
    )
    assert answer.status_code == 401 and fake.requests[-1]["headers"]["authorization"] == "Bearer sk-made-up"
    assert relay.ledger.summary()["fault"] is None and relay.provider_unavailable() is None


def test_a_keyless_endpoint_gets_no_placeholder(tmp_path: Path) -> None:
    fake = FakeLLM({"default": [TEXT]}, host="127.0.0.1")
    fake.start()
    credential = RunCredential(new_placeholder(), None)
    server = serve_relay(Relay(f"http://127.0.0.1:{fake.port}", credential=credential), "127.0.0.1", 0)
    try:
        answer = httpx.post(
            f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions?key={credential.placeholder}",
            json={"model": "m", "messages": []},
            trust_env=False,
            timeout=10,
            headers={"Authorization": f"Bearer {credential.placeholder}"},
        )
        assert answer.status_code == 200
        [seen] = fake.requests
        assert "authorization" not in seen["headers"] and seen["path"] == "/v1/chat/completions"
    finally:
        server.shutdown()
        fake.stop()
