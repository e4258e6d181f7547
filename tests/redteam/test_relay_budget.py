"""Red team against the relay's token budget and its pinned model (real HTTP, no container): an
agent that streams without asking for usage, floods calls in parallel, cuts its streams or names a
dearer model must not spend past --max-tokens nor call anything but the run's model."""

from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from gaia2_container.daemon.http.server import DaemonServer
from gaia2_container.daemon.provider.faults import RunnerSetup
from gaia2_container.daemon.provider.ledger import ProviderLedger
from gaia2_container.daemon.provider.usage import DEFAULT_MAX_OUTPUT_TOKENS
from gaia2_container.daemon.relay import Relay, serve_relay
from polling import until

pytestmark = pytest.mark.redteam
MODEL = "gpt-4o-mini"
KEY = "sk-configured"
OUTPUT = 20  # what the provider writes per call (at most max_tokens)


class Provider(BaseHTTPRequestHandler):
    """A strict OpenAI-compatible provider: `stream_options` only with `stream: true`, usage in a
    stream only when asked (`include_usage`), unless `ignore_usage`: then never. Usage: a token per
    four bytes of prompt, OUTPUT tokens out (at most max_tokens). `delay_s` before answering, and
    between a stream's chunks."""

    seen: list[dict] = []
    ignore_usage = False
    delay_s = 0.0

    def log_message(self, *_args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - a model lookup
        Provider.seen.append({"path": self.path})
        self._send(200, {"id": self.path.rsplit("/", 1)[-1], "object": "model"})

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw)
        Provider.seen.append(body)
        if "stream_options" in body and body.get("stream") is not True:
            return self._send(
                400, {"error": {"message": "stream_options is only allowed when stream is true"}}
            )
        usage = {
            "prompt_tokens": len(raw) // 4,
            "completion_tokens": min(OUTPUT, body.get("max_tokens") or OUTPUT),
        }
        time.sleep(Provider.delay_s)
        if not body.get("stream"):
            return self._send(200, {"choices": [{"message": {"content": "hi"}}], "usage": usage})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        chunks = [{"choices": [{"index": 0, "delta": {"content": f"w{i} "}}]} for i in range(4)]
        if (body.get("stream_options") or {}).get("include_usage") and not Provider.ignore_usage:
            chunks.append({"choices": [], "usage": usage})
        try:
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                time.sleep(Provider.delay_s)
            self.wfile.write(b"data: [DONE]\n\n")
        except OSError:
            pass  # the relay hung up: the agent cut the stream

    def _send(self, status: int, doc: dict) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def relay():
    Provider.seen, Provider.ignore_usage, Provider.delay_s = [], False, 0.0
    provider = DaemonServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    budgets: list[str] = []
    ledger = ProviderLedger(
        RunnerSetup(model=MODEL, agent_key=KEY), token_budget=1000, on_budget=budgets.append
    )
    witness = Relay(f"http://127.0.0.1:{provider.server_address[1]}/v1", timeout_s=10.0, ledger=ledger)
    server = serve_relay(witness, "127.0.0.1", 0)
    with httpx.Client(
        base_url=f"http://127.0.0.1:{server.server_address[1]}",
        trust_env=False,
        timeout=20,
        headers={"Authorization": f"Bearer {KEY}"},
    ) as http:
        yield witness, http, budgets
    server.shutdown()
    provider.shutdown()


def chat(**extra) -> dict:
    return {"model": MODEL, "messages": [{"role": "user", "content": "go"}], **extra}


def prompt(body: dict) -> int:
    """The provider's prompt tokens for a body as the relay forwarded it (compact JSON)."""
    return len(json.dumps(body, separators=(",", ":"))) // 4


def spent(witness: Relay) -> int:
    tokens = witness.ledger.summary()["tokens"]
    return tokens["input"] + tokens["output"]


def test_streams_without_include_usage_are_counted_from_the_usage_the_relay_asks_for(relay) -> None:
    witness, http, _ = relay
    for _ in range(10):
        answer = http.post("/chat/completions", json=chat(stream=True, stream_options={"other": 1}))
        assert answer.status_code == 200
    events = [line[6:] for line in answer.text.splitlines() if line.startswith("data: ")]
    asked = prompt(Provider.seen[0])
    assert json.loads(events[-2]) == {
        "choices": [],
        "usage": {"prompt_tokens": asked, "completion_tokens": OUTPUT},
    }
    assert events[-1] == "[DONE]"  # the agent sees the final usage chunk, then the stream's end
    assert all(body["stream_options"] == {"other": 1, "include_usage": True} for body in Provider.seen)
    assert spent(witness) == 10 * (asked + OUTPUT)  # the usage the provider reported, no estimate
    plain = http.post("/chat/completions", json=chat())  # not streamed: the body goes as sent
    assert plain.status_code == 200 and "stream_options" not in Provider.seen[-1]


def test_parallel_calls_overshoot_the_budget_by_one_reservation_at_most(relay) -> None:
    """The report's attack: ten streams without include_usage, then twenty calls at once."""
    witness, http, budgets = relay
    for _ in range(10):
        assert http.post("/chat/completions", json=chat(stream=True)).status_code == 200
    assert spent(witness) == 10 * (prompt(Provider.seen[0]) + OUTPUT)
    Provider.delay_s = 0.2  # they are all in flight together
    body = chat(stream=True, max_tokens=50)
    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(lambda _: http.post("/chat/completions", json=body).status_code, range(20)))
    reservation = prompt({**body, "stream_options": {"include_usage": True}}) + 50
    assert set(statuses) == {200, 400} and statuses.count(400) >= 5, statuses
    assert spent(witness) <= 1000 + reservation, (spent(witness), statuses)
    assert len(Provider.seen) == 10 + statuses.count(200)  # the refused never left
    assert len(budgets) == 1 and "token budget exhausted" in budgets[0]


def test_calls_at_once_without_max_tokens_hold_the_default_reservation(relay) -> None:
    witness, http, _ = relay
    Provider.delay_s = 0.3
    with ThreadPoolExecutor(20) as pool:
        statuses = list(
            pool.map(lambda _: http.post("/chat/completions", json=chat(stream=True)).status_code, range(20))
        )
    assert statuses.count(200) == 1 and len(Provider.seen) == 1, statuses  # the first holds 4096 + its prompt
    assert spent(witness) <= 1000 + DEFAULT_MAX_OUTPUT_TOKENS + 100


def test_an_answer_reporting_no_usage_is_charged_its_reservation(relay) -> None:
    witness, http, budgets = relay
    Provider.ignore_usage = True  # a provider that ignores include_usage
    assert http.post("/chat/completions", json=chat(stream=True, max_tokens=100)).status_code == 200
    sent = prompt(Provider.seen[0])
    assert witness.ledger.summary()["tokens"] == {"input": sent, "output": 100, "cached": 0}
    assert witness.ledger.summary()["by_model"][MODEL]["output"] == 100  # and priced so
    for _ in range(8):
        http.post("/chat/completions", json=chat(stream=True, max_tokens=100))
    assert spent(witness) <= 1000 + sent + 100 and len(budgets) == 1


def test_a_stream_the_agent_cuts_is_charged_at_least_its_reservation(relay) -> None:
    witness, http, _ = relay
    Provider.delay_s = 0.2
    host, port = str(http.base_url.host), http.base_url.port
    data = json.dumps(chat(stream=True, max_tokens=300)).encode()
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(
            b"POST /chat/completions HTTP/1.0\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer "
            + KEY.encode()
            + b"\r\nContent-Length: "
            + str(len(data)).encode()
            + b"\r\n\r\n"
            + data
        )
        received = b""
        while b"data:" not in received:  # the first chunk, then the agent hangs up
            received += sock.recv(4096) or pytest.fail(f"the stream ended: {received!r}")
    assert until(lambda: witness.ledger.summary()["ok"] == 1), witness.ledger.summary()
    assert witness.ledger.summary()["tokens"]["output"] >= 300  # not the OUTPUT it would have reported


def test_another_model_is_refused_and_never_forwarded(relay) -> None:
    witness, http, _ = relay
    for body in (
        chat(model="o1-pro"),
        chat(model="openai/gpt-4o-mini"),
        chat(model=None),
        {"messages": []},
        chat(model=[MODEL]),
    ):
        refused = http.post("/chat/completions", json=body)
        assert refused.status_code == 400, body
        error = refused.json()["error"]
        assert error["type"] == "gaia2_relay_refused" and error["message"].startswith(
            "gaia2 relay: this run's model is"
        )
    repeated = (
        f'{{"model": "{MODEL}", "messages": [], "model": "o1-pro"}}'  # which copy would the provider read?
    )
    refused = http.post("/chat/completions", content=repeated, headers={"Content-Type": "application/json"})
    assert refused.status_code == 400 and "repeats the key 'model'" in refused.json()["error"]["message"]
    assert http.post("/responses", json={"model": "o1-pro", "input": "hi"}).status_code == 400
    assert http.post("/chat/completions", content=b"model=o1-pro").status_code == 400
    assert Provider.seen == []  # the provider saw nothing
    assert witness.ledger.summary()["refused_model"] == 8 and witness.ledger.summary()["calls"] == 0
    assert http.get("/models/o1-pro").status_code == 200  # a model lookup is no model call: it passes
    assert http.post("/chat/completions", json=chat()).status_code == 200


@pytest.fixture
def gemini_relay():
    """The relay in front of a Gemini endpoint configured with the "models/" spelling."""
    Provider.seen = []
    provider = DaemonServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    ledger = ProviderLedger(RunnerSetup(model="models/gemini-2.5-flash", agent_key=KEY))
    server = serve_relay(
        Relay(f"http://127.0.0.1:{provider.server_address[1]}/v1beta", ledger=ledger), "127.0.0.1", 0
    )
    with httpx.Client(
        base_url=f"http://127.0.0.1:{server.server_address[1]}", trust_env=False, timeout=20
    ) as http:
        yield http
    server.shutdown()
    provider.shutdown()


def test_the_gemini_path_names_the_model(gemini_relay) -> None:
    http = gemini_relay
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}
    assert http.post("/models/gemini-2.5-flash:generateContent", json=body).status_code == 200
    assert (
        http.post("/v1beta/models/gemini-2.5-fl%61sh:streamGenerateContent?alt=sse", json=body).status_code
        == 200
    )
    for path in (
        "/models/gemini-2.5-pro:generateContent",
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
    ):
        refused = http.post(path, json=body)
        assert refused.status_code == 400 and "'gemini-2.5-pro'" in refused.json()["error"]["message"]
    assert (
        http.post(
            "/models/gemini-2.5-flash:generateContent", json={**body, "model": "models/gemini-2.5-pro"}
        ).status_code
        == 400
    )
    assert len(Provider.seen) == 2


@pytest.mark.parametrize("target", ["/chat/completions#x", "/chat/complet%69ons", "/v1/chat/completions%23x"])
def test_a_path_spelled_otherwise_is_still_a_model_call_or_refused(relay, target: str) -> None:
    """What the provider reads is what the relay's rules see: a fragment (httpx drops it) is
    refused, a percent-encoded model path is a model call, pinned like any other: o1-pro never leaves."""
    witness, http, _ = relay
    host, port = str(http.base_url).removeprefix("http://").rstrip("/").split(":")
    data = json.dumps({"model": "o1-pro", "messages": []}).encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:  # the target exactly as written
        sock.sendall(
            f"POST {target} HTTP/1.0\r\nAuthorization: Bearer {KEY}\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        status = int(sock.makefile("rb").readline().split()[1])
    assert status in (400, 404), (target, status)
    assert not [seen for seen in Provider.seen if seen.get("model") == "o1-pro"], Provider.seen
