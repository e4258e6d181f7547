"""The relay's ledger (daemon/provider/ledger.py), the token counts it reads from answers
(daemon/provider/usage.py). No timing: the ledger's clock is a counter the test moves (the call budget
fitted to the scenario limit, budget.py: test_budget.py)."""

from __future__ import annotations

import json

from gaia2_container.daemon.provider.faults import Request, RunnerSetup  # noqa: E402
from gaia2_container.daemon.provider.ledger import BURST_LIMIT, ProviderLedger  # noqa: E402
from gaia2_container.daemon.provider.probe import ProviderProbe  # noqa: E402
from gaia2_container.daemon.provider.usage import tokens_of  # noqa: E402
from gaia2_container.preflight import Probe  # noqa: E402

URL = "https://api.example/v1/chat/completions"
MODEL = "gpt-test"
OK_BODY = json.dumps({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20}}).encode()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Provider:
    """What the runner's own probe gets (a preflight Probe), and how many were sent."""

    def __init__(self, status: int | None = 200, failure: str | None = None, detail: str = "") -> None:
        self.status, self.failure, self.detail, self.sent = status, failure, detail, 0

    def __call__(self, deadline: float) -> Probe:
        self.sent += 1
        return Probe(self.status, self.failure, self.detail, url=URL)


def ledger(provider: Provider | None = None, **kwargs) -> tuple[ProviderLedger, Clock]:
    """A ledger whose probe asks `provider` (default: a working one) on the test's clock."""
    clock = Clock()
    probe = ProviderProbe(provider or Provider(), MODEL, clock=clock)
    return ProviderLedger(RunnerSetup(model=MODEL, agent_key="k"), clock=clock, probe=probe, **kwargs), clock


def chat(model: str = MODEL) -> Request:
    return Request("/chat/completions", {"model": model}, ("Bearer k",))


def answer(
    book: ProviderLedger,
    status: int | None,
    body: bytes = b"{}",
    error: str | None = None,
    model: str = MODEL,
):
    return book.finish(book.begin(chat(model)), URL, status, error, body)


DOWN = Provider(None, "timeout", "no answer within 20s")


def test_a_provider_that_never_answered_is_named_so() -> None:
    book, clock = ledger(DOWN)
    assert book.provider_unavailable() is None  # no call at all: nothing to say
    answer(book, None, error="ReadTimeout: timed out")
    pending = book.begin(chat())
    clock.now += 95
    reason = book.provider_unavailable()
    assert reason == (
        "the provider never answered (2 calls, last after 95 s: still waiting); the runner's own "
        "request got no answer either (timeout: no answer within 20s)"
    )
    book.finish(pending, URL, None, "ReadTimeout: timed out")
    assert (book.provider_unavailable() or "").startswith(
        "the provider never answered (2 calls, last after 95 s: ReadTimeout: timed out); the runner's own"
    )


def test_one_answer_and_the_streak_rule_decides() -> None:
    book, _ = ledger(Provider(503, None, "overloaded"))
    answer(book, 200, OK_BODY)
    answer(book, None, error="ConnectError")
    assert book.provider_unavailable() is None  # one failure is not an outage
    answer(book, 503)
    assert book.provider_unavailable() == (
        f"provider error: HTTP 503 from {URL}; the runner's own request "
        f"failed too (HTTP 503 from {URL}: overloaded)"
    )
    answer(book, 400, b'{"error": {"message": "bad role"}}')  # the agent's own: the streak is broken
    assert book.provider_unavailable() is None


def test_an_outage_the_runners_own_request_does_not_see_was_the_agents() -> None:
    """Two requests of the agent's own making fail (an oversized body dropped unread, a generation
    it abandoned): the provider answers the runner's probe at once, so the run is judged, with the
    provider's words in its note."""
    provider = Provider()
    book, clock = ledger(provider)
    answer(book, None, error="RemoteProtocolError: Server disconnected without sending a response")
    pending = book.begin(chat())
    clock.now += 75
    assert book.provider_unavailable() is None
    note = book.notes() or ""
    assert note.startswith(
        "the provider never answered (2 calls, last after 75 s: still waiting); the runner's "
        "own request with the configured key, model and endpoint was answered"
    ), note
    assert note.endswith("so it counts as the agent's")
    assert book.summary()["probes"] == provider.sent == 2  # when the first failed, and at the end (75 s on)
    book.finish(pending, URL, 200, None, OK_BODY)


def test_rate_limits_after_the_agents_flood_count_for_nothing() -> None:
    book, _ = ledger(Provider(502))
    for _ in range(BURST_LIMIT + 1):
        answer(book, 200, b"{}")
    answer(book, 429)
    answer(book, 429)
    assert book.provider_unavailable() is None
    counts = book.summary()
    assert counts["rate_limit"] == 0 and counts["rate_limit_burst"] == 2
    answer(book, 500)
    answer(book, 502)
    assert "HTTP 502" in (book.provider_unavailable() or "")  # server errors still count


def test_the_built_in_runtimes_rate_limits_count_however_fast_it_went() -> None:
    """The built-in runtime paces itself (one request at a time, Retry-After honoured): a real 429
    storm after many quick steps is still the provider's, never the agent's flood."""
    book, _ = ledger(Provider(429, None, "Rate limit reached"), paced=True)
    for _ in range(BURST_LIMIT + 1):
        answer(book, 200, b"{}")
    answer(book, 429)
    answer(book, 429)
    assert "HTTP 429" in (book.provider_unavailable() or "")
    assert book.summary()["rate_limit"] == 2 and book.summary()["rate_limit_burst"] == 0


def test_the_jobs_pressure_counts_only_what_the_probe_sees_too() -> None:
    working, storm = Provider(), Provider(429, None, "Rate limit reached")
    for provider, confirmed in ((working, False), (storm, True)):
        book, _ = ledger(provider)
        answer(book, 429)
        answer(book, 429)
        book.settle()
        assert (
            book.summary()["rate_limit"] == 2 and (book.summary()["confirmed_unavailable"] > 0) == confirmed
        )
        assert provider.sent == 1  # one probe for the storm, whatever its length


NOT_FOUND = b'{"error": {"message": "The model `gpt-test` does not exist"}}'


def test_a_configuration_fault_is_told_once_and_kept() -> None:
    faults: list[str] = []
    book, _ = ledger(Provider(404, None, "The model `gpt-test` does not exist"), on_fault=faults.append)
    answer(book, 404, NOT_FOUND)
    answer(book, 401)
    book.settle()
    assert len(faults) == 1 and "does not know the model 'gpt-test'" in faults[0], faults
    assert book.summary()["fault"] == {"kind": "configuration", "reason": faults[0]}
    assert (book.provider_unavailable() or "").startswith("configuration fault: the provider does not know")


def test_a_refusal_the_runners_own_request_does_not_get_is_the_agents() -> None:
    """The agent's placeholder in the wrong header (401), max_tokens its balance cannot cover (402),
    a firewall's 403 page, a path the server lacks (404 to the first request): the probe with the
    configured key, model and endpoint is answered, so no fault, one probe, the words in the note."""
    for status, body in (
        (401, b'{"error": {"message": "Missing bearer authentication"}}'),
        (402, b'{"error": {"message": "requires more credits, or fewer max_tokens"}}'),
        (403, b"<html><body>Request blocked by the web application firewall</body></html>"),
        (404, b'{"error": "no route /v1/responses"}'),
    ):
        faults: list[str] = []
        provider = Provider()
        book, clock = ledger(provider, on_fault=faults.append)
        for _ in range(3):
            answer(book, status, body)
            clock.now += 1
        book.settle()
        assert faults == [] and book.summary()["fault"] is None and book.provider_unavailable() is None, (
            status
        )
        assert f"HTTP {status} from {URL}" in (book.notes() or ""), (status, book.notes())
        assert provider.sent <= 2, status  # one in the run, one at its end at most


def test_the_agent_and_its_expert_agents_spend_one_budget() -> None:
    """Agent2Agent: the expert agents' ledger shares the run's --max-tokens with the agent's, so an
    agent that passes its work to experts is stopped at the same total."""
    told: list[str] = []
    agent, _ = ledger(token_budget=200, on_budget=told.append)
    experts, _ = ledger(token_budget=200, on_budget=told.append)
    agent.share_budget(experts)
    answer(agent, 200, OK_BODY)
    assert experts.refuse_for_budget() is None and agent.refuse_for_budget() is None  # 120 of 200
    answer(experts, 200, OK_BODY)
    note = experts.refuse_for_budget()
    assert note == (
        "token budget exhausted: the agent's and its expert agents' model calls used 240 tokens "
        "of the 200 allowed per scenario (--max-tokens)"
    )
    assert agent.refuse_for_budget() is not None and told[0] == note


def test_the_agents_changed_model_name_is_no_fault() -> None:
    faults: list[str] = []
    provider = Provider(404, None, "The model `gpt-test` does not exist")
    book, _ = ledger(provider, on_fault=faults.append)
    answer(book, 404, b'{"error": {"message": "The model `gpt-x` does not exist"}}', model="gpt-x")
    assert faults == [] and book.summary()["fault"] is None and book.summary()["agent"] == 1
    assert provider.sent == 0  # not even a suspicion: no probe


def test_tokens_per_model_and_the_budget() -> None:
    told: list[str] = []
    changes: list[dict] = []
    book, _ = ledger(token_budget=200, on_budget=told.append, on_change=changes.append)
    answer(book, 200, OK_BODY)
    assert book.refuse_for_budget() is None
    answer(book, 200, OK_BODY)
    note = book.refuse_for_budget()
    assert note == (
        "token budget exhausted: the agent's model calls used 240 tokens of the 200 allowed per "
        "scenario (--max-tokens)"
    )
    assert book.refuse_for_budget() == note and told == [note]  # told once, refused every time
    summary = book.summary()
    assert summary["tokens"] == {"input": 200, "output": 40, "cached": 0}
    assert summary["by_model"] == {MODEL: {"calls": 2, "input": 200, "output": 40, "cached": 0}}
    assert summary["refused_budget"] == 2 and summary["budget_exhausted"] is True
    assert changes[-1] == summary
    # Error answers carry no usage the agent is charged for.
    answer(book, 429, b'{"usage": {"prompt_tokens": 999}}')
    assert book.summary()["tokens"]["input"] == 200


def test_context_overflow_is_noted() -> None:
    book, _ = ledger()
    answer(book, 200, OK_BODY)
    answer(book, 400, b'{"error": {"message": "maximum context length is 8192 tokens"}}')
    assert "maximum context length is 8192 tokens" in (book.context_overflow() or "")
    assert book.provider_unavailable() is None


def sse(*events: dict) -> bytes:
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode() + b"data: [DONE]\n\n"


def test_usage_in_every_wire_format() -> None:
    assert tokens_of(OK_BODY).total == 120
    cached = {
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 30}}
    }
    assert vars(tokens_of(json.dumps(cached).encode())) == {"input": 50, "output": 5, "cached": 30}
    chat_stream = sse(
        {"choices": [{"delta": {"content": "hi"}}]},
        {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
    )
    assert tokens_of(chat_stream).total == 10
    anthropic = sse(
        {
            "type": "message_start",
            "message": {"usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 90}},
        },
        {"type": "message_delta", "usage": {"output_tokens": 15}},
    )
    assert vars(tokens_of(anthropic)) == {"input": 100, "output": 15, "cached": 90}
    responses = sse(
        {"type": "response.completed", "response": {"usage": {"input_tokens": 12, "output_tokens": 4}}}
    )
    assert tokens_of(responses).total == 16
    gemini = sse(
        {"usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 1}},
        {"usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 6}},
    )
    assert tokens_of(gemini).total == 14
    assert tokens_of(b"").total == 0 and tokens_of(b"not json").total == 0
    assert tokens_of(b'{"usage": {"prompt_tokens": -5, "completion_tokens": true}}').total == 0


def test_calls_still_out_when_the_run_ends_cost_their_reservation_once() -> None:
    """The account is published when the run ends: a call the provider has not answered by then is
    charged what it reserved (never 0), and its late answer adds nothing."""
    book, _ = ledger(token_budget=100_000)
    request = chat()
    assert book.reserve(request, 400) is None  # 4096 output tokens (the default) + 100 for the body
    call = book.begin(request)
    book.charge_in_flight()
    held = book.summary()["tokens"]
    assert held["input"] + held["output"] >= 4096, held
    book.finish(call, URL, 200, None, OK_BODY)
    assert book.summary()["tokens"] == held


def test_an_answer_the_agent_no_longer_waited_for_still_costs_what_it_reserved() -> None:
    """A full generation the provider billed after the agent hung up (past the honest wait) is the
    provider's silence for the run's verdict, and still costs tokens: never 0 against --max-tokens."""
    book, clock = ledger(token_budget=100_000)
    request = chat()
    assert book.reserve(request, 400) is None
    call = book.begin(request)
    clock.now += 75
    book.cut_short(request)
    outcome = book.finish(call, URL, 200, None, b"", waited_s=75, hung_up=True)
    assert outcome.status is None and outcome.kind == "unanswered"
    spent = book.summary()["tokens"]
    assert spent["input"] + spent["output"] >= 4096, spent


def test_an_answer_from_before_the_outage_does_not_clear_it() -> None:
    """The probe said OK at a first failure; the provider then went down. At the run's end the
    witness asks again (an answer older than the last failure is no evidence of now)."""
    provider = Provider()
    book, clock = ledger(provider)
    answer(book, 503)
    book.settle()  # the probe: answered
    assert provider.sent == 1
    clock.now += 10
    provider.status, provider.detail = 503, "overloaded"  # down from here on
    answer(book, 503)
    clock.now += 5
    assert "the runner's own request failed too" in (book.provider_unavailable() or "")
    assert provider.sent == 2


def test_a_refusal_followed_at_once_by_a_failure_is_still_the_agents_in_the_note() -> None:
    """The agent's 401 and then a dropped request before any probe answered: the refusal is not lost
    behind the newer suspicion (CI found it so under load)."""
    import threading

    gate = threading.Event()
    provider = Provider()

    def slow(deadline: float) -> Probe:
        gate.wait(5)
        return provider(deadline)

    clock = Clock()
    book = ProviderLedger(
        RunnerSetup(model=MODEL, agent_key="k"), clock=clock, probe=ProviderProbe(slow, MODEL, clock=clock)
    )
    answer(book, 401, b'{"error": {"message": "Missing bearer authentication"}}')
    answer(book, None, error="RemoteProtocolError: Server disconnected")
    gate.set()
    book.settle()
    assert "HTTP 401" in (book.notes() or "") and book.summary()["fault"] is None, book.notes()
