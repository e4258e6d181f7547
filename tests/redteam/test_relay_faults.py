"""The relay's ledger over real HTTP (no container): configuration faults only for the runner's own
requests, the token budget enforced before anything is forwarded, a silent provider named as such."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from gaia2_container.daemon.http.server import DaemonServer  # noqa: E402
from gaia2_container.daemon.provider.faults import RunnerSetup  # noqa: E402
from gaia2_container.daemon.provider.ledger import ProviderLedger  # noqa: E402
from gaia2_container.daemon.relay import Relay, serve_relay  # noqa: E402
from polling import until
from relay_probe import PROBE_MARKER, probe_of  # noqa: E402

pytestmark = pytest.mark.redteam
MODEL = "configured-model"
KEY = "sk-configured"
SLOW_WAIT_S = 0.6  # the ledger's "an honest agent gave up by now" (60 s in the daemon)
RELAY_TIMEOUT_S = 3.0


class Provider(BaseHTTPRequestHandler):
    """Answers what the body asks for: {"reply_status": 404, "reply": {...}}; {"hang": true} waits
    until the test releases it; else 200 with usage (100 tokens)."""

    release = threading.Event()
    seen: list[dict] = []
    # what the runner's own probe gets: the provider's state ({"hang": True}, {"reply_status": 404, ...})
    probe: dict = {}

    def log_message(self, *_args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        if PROBE_MARKER in raw:
            body = dict(Provider.probe)
        else:
            Provider.seen.append(body)
        if body.get("hang"):
            Provider.release.wait(30)
            return
        if body.get("delay"):
            threading.Event().wait(float(body["delay"]))
        status = int(body.get("reply_status", 200))
        reply = body.get("reply") or {"choices": [], "usage": {"prompt_tokens": 80, "completion_tokens": 20}}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def relay():
    Provider.seen, Provider.release, Provider.probe = [], threading.Event(), {}
    provider = DaemonServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    faults: list[str] = []
    budgets: list[str] = []
    upstream = f"http://127.0.0.1:{provider.server_address[1]}/v1"
    ledger = ProviderLedger(
        RunnerSetup(model=MODEL, agent_key=KEY),
        token_budget=250,
        probe=probe_of(upstream, MODEL),
        on_fault=faults.append,
        on_budget=budgets.append,
        slow_wait_s=SLOW_WAIT_S,
    )
    # The relay's wait for the provider: far above a late answer's delay (0.9 s), so a loaded machine
    # cannot turn a late answer into none.
    witness = Relay(
        f"http://127.0.0.1:{provider.server_address[1]}/v1", timeout_s=RELAY_TIMEOUT_S, ledger=ledger
    )
    server = serve_relay(witness, "127.0.0.1", 0)
    with httpx.Client(
        base_url=f"http://127.0.0.1:{server.server_address[1]}",
        trust_env=False,
        timeout=10,
        headers={"Authorization": f"Bearer {KEY}"},
    ) as http:
        yield witness, http, faults, budgets
    Provider.release.set()
    server.shutdown()
    provider.shutdown()


NOT_FOUND = {"error": {"message": f"The model `{MODEL}` does not exist", "code": "model_not_found"}}


def test_the_agent_cannot_provoke_a_configuration_fault(relay) -> None:
    witness, http, faults, _ = relay
    agent_model = {"model": "renamed-by-the-agent", "reply_status": 404, "reply": NOT_FOUND}
    refused = http.post("/chat/completions", json=agent_model)  # another model never leaves (relay_body.py)
    assert refused.status_code == 400 and refused.json()["error"]["type"] == "gaia2_relay_refused"
    assert Provider.seen == [] and witness.ledger.summary()["refused_model"] == 1
    own_path = {"model": MODEL, "reply_status": 404, "reply": NOT_FOUND}
    assert http.post("/chat/completions/../models", json=own_path).status_code == 404
    assert http.post("/echo", json=own_path).status_code == 404
    made_up_key = {"model": MODEL, "reply_status": 401, "reply": {"error": {"message": "bad key"}}}
    assert (
        http.post(
            "/chat/completions", json=made_up_key, headers={"Authorization": "Bearer sk-mine"}
        ).status_code
        == 401
    )
    assert faults == [] and witness.ledger.summary()["fault"] is None
    assert witness.provider_unavailable() is None


def test_the_runners_model_refused_is_a_configuration_fault(relay) -> None:
    witness, http, faults, _ = relay
    Provider.probe = {"reply_status": 404, "reply": NOT_FOUND}  # the runner's own request is refused too
    answer = http.post("/chat/completions", json={"model": MODEL, "reply_status": 404, "reply": NOT_FOUND})
    assert answer.status_code == 404 and answer.json() == NOT_FOUND  # the agent sees the provider's answer
    assert until(lambda: faults), witness.ledger.summary()
    assert len(faults) == 1 and f"does not know the model '{MODEL}'" in faults[0]


def test_what_the_agent_provokes_with_the_runners_key_is_not_a_fault(relay) -> None:
    """The run's placeholder in a header the provider does not read (401), max_tokens beyond the
    balance (402), a firewall's 403 page, a 404 to a first request on a path the server lacks: the
    runner's own request is answered, so no fault; the run goes on, the provider's words in its note."""
    witness, http, faults, _ = relay
    for status, reply in (
        (401, {"error": {"message": "Missing bearer or basic authentication in header"}}),
        (402, {"error": {"message": "This request requires more credits, or fewer max_tokens"}}),
        (403, {"error": "<html>Request blocked by the web application firewall</html>"}),
        (404, NOT_FOUND),
    ):
        sent = {"model": MODEL, "reply_status": status, "reply": reply, "max_tokens": 1000000}
        assert http.post("/chat/completions", json=sent).status_code == status
    assert (
        witness.provider_unavailable() is None and faults == [] and witness.ledger.summary()["fault"] is None
    )
    assert "counts as the agent's" in (witness.ledger.notes() or "")
    assert witness.ledger.summary()["probes"] <= 2  # one while the run went on, one at its end


def test_calls_past_the_token_budget_are_refused_before_the_provider(relay) -> None:
    witness, http, _, budgets = relay
    for _ in range(3):  # 100 tokens each: 300 > 250 after the third
        assert http.post("/chat/completions", json={"model": MODEL}).status_code == 200
    refused = http.post("/chat/completions", json={"model": MODEL})
    assert refused.status_code == 400
    assert refused.json()["error"]["type"] == "gaia2_token_budget_exhausted"
    assert "300 tokens of the 250 allowed" in refused.json()["error"]["message"]
    assert len(Provider.seen) == 3 and len(budgets) == 1  # never forwarded; the run told once
    assert witness.provider_unavailable() is None  # the relay's own refusal is no outage


def test_a_provider_that_never_answers_is_witnessed_as_such(relay) -> None:
    witness, http, faults, _ = relay
    Provider.probe = {"hang": True}
    for _ in range(2):  # the relay gives up after its timeout (RELAY_TIMEOUT_S) and answers 502
        assert http.post("/chat/completions", json={"model": MODEL, "hang": True}).status_code == 502
    reason = witness.provider_unavailable() or ""
    assert re.match(r"the provider never answered \(2 calls, last after \d+ s: ReadTimeout", reason), reason
    assert witness.ledger.summary()["unanswered"] == 2 and faults == []


def test_a_slow_answer_the_agent_no_longer_waited_for_is_the_providers_silence(relay) -> None:
    """An agent's request times out (its client gives up), the provider answers later, the retry
    still waits when the agent exits: no "ok" is recorded, the provider never answered in time."""
    witness, http, faults, _ = relay
    Provider.probe = {"hang": True}
    for _ in range(2):
        with pytest.raises(httpx.ReadTimeout):
            # max_tokens: a small reservation, so the retry fits the budget beside the call in flight
            http.post("/chat/completions", json={"model": MODEL, "delay": 0.9, "max_tokens": 1}, timeout=0.3)
    assert until(lambda: witness.ledger.summary()["unanswered"] == 2), witness.ledger.summary()
    reason = witness.provider_unavailable() or ""
    assert reason.startswith("the provider never answered (2 calls"), reason
    assert "when the agent had stopped waiting" in reason and witness.ledger.summary()["ok"] == 0
    assert faults == []


def test_an_agent_that_hangs_up_at_once_makes_no_outage(relay) -> None:
    """Hanging up before an honest wait (SLOW_WAIT_S) is the agent's doing: the provider's prompt
    answers count as answered, so no infrastructure error can be bought that way."""
    witness, http, _, _ = relay
    for _ in range(2):
        with pytest.raises(httpx.ReadTimeout):
            http.post("/chat/completions", json={"model": MODEL, "delay": 0.3, "max_tokens": 1}, timeout=0.1)
    assert until(lambda: witness.ledger.summary()["ok"] == 2), witness.ledger.summary()
    assert witness.ledger.summary()["ok"] == 2 and witness.provider_unavailable() is None
