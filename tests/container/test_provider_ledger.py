"""The relay's ledger (daemon/provider_ledger.py), the token counts it reads from answers
(daemon/usage.py) and the call budget fitted to the scenario limit (budget.py). No timing: the
ledger's clock is a counter the test moves."""

from __future__ import annotations

import json
import pytest


from gaia2_container import budget  # noqa: E402
from gaia2_container.daemon.provider_faults import Request, RunnerSetup  # noqa: E402
from gaia2_container.daemon.provider_ledger import BURST_LIMIT, ProviderLedger  # noqa: E402
from gaia2_container.daemon.usage import tokens_of  # noqa: E402
from gaia2_container.runtimes.llm.settings import Settings  # noqa: E402

URL = "https://api.example/v1/chat/completions"
MODEL = "gpt-test"
OK_BODY = json.dumps({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20}}).encode()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ledger(**kwargs) -> tuple[ProviderLedger, Clock]:
    clock = Clock()
    return ProviderLedger(RunnerSetup(model=MODEL, agent_key="k"), clock=clock, **kwargs), clock


def chat(model: str = MODEL) -> Request:
    return Request("/chat/completions", {"model": model}, ("Bearer k",))


def answer(book: ProviderLedger, status: int | None, body: bytes = b"{}", error: str | None = None, model: str = MODEL):
    return book.finish(book.begin(chat(model)), URL, status, error, body)


def test_a_provider_that_never_answered_is_named_so() -> None:
    book, clock = ledger()
    assert book.provider_unavailable() is None  # no call at all: nothing to say
    answer(book, None, error="ReadTimeout: timed out")
    pending = book.begin(chat())
    clock.now += 95
    reason = book.provider_unavailable()
    assert reason == "the provider never answered (2 calls, last after 95 s: still waiting)"
    book.finish(pending, URL, None, "ReadTimeout: timed out")
    assert book.provider_unavailable() == "the provider never answered (2 calls, last after 95 s: ReadTimeout: timed out)"


def test_one_answer_and_the_streak_rule_decides() -> None:
    book, _ = ledger()
    answer(book, 200, OK_BODY)
    answer(book, None, error="ConnectError")
    assert book.provider_unavailable() is None  # one failure is not an outage
    answer(book, 503)
    assert book.provider_unavailable() == f"provider error: HTTP 503 from {URL}"
    answer(book, 400, b'{"error": {"message": "bad role"}}')  # the agent's own: the streak is broken
    assert book.provider_unavailable() is None


def test_rate_limits_after_the_agents_flood_count_for_nothing() -> None:
    book, _ = ledger()
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
    book, _ = ledger(paced=True)
    for _ in range(BURST_LIMIT + 1):
        answer(book, 200, b"{}")
    answer(book, 429)
    answer(book, 429)
    assert "HTTP 429" in (book.provider_unavailable() or "")
    assert book.summary()["rate_limit"] == 2 and book.summary()["rate_limit_burst"] == 0


def test_a_configuration_fault_is_told_once_and_kept() -> None:
    faults: list[str] = []
    book, _ = ledger(on_fault=faults.append)
    answer(book, 404, b'{"error": {"message": "The model `gpt-test` does not exist"}}')
    answer(book, 401)
    assert len(faults) == 1 and "does not know the model 'gpt-test'" in faults[0]
    assert book.summary()["fault"] == {"kind": "configuration", "reason": faults[0]}


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
    assert note == ("token budget exhausted: the agent's and its expert agents' model calls used 240 tokens "
                    "of the 200 allowed per scenario (--max-tokens)")
    assert agent.refuse_for_budget() is not None and told[0] == note


def test_the_agents_changed_model_name_is_no_fault() -> None:
    faults: list[str] = []
    book, _ = ledger(on_fault=faults.append)
    answer(book, 404, b'{"error": {"message": "The model `gpt-x` does not exist"}}', model="gpt-x")
    assert faults == [] and book.summary()["fault"] is None and book.summary()["agent"] == 1


def test_tokens_per_model_and_the_budget() -> None:
    told: list[str] = []
    changes: list[dict] = []
    book, _ = ledger(token_budget=200, on_budget=told.append, on_change=changes.append)
    answer(book, 200, OK_BODY)
    assert book.refuse_for_budget() is None
    answer(book, 200, OK_BODY)
    note = book.refuse_for_budget()
    assert note == ("token budget exhausted: the agent's model calls used 240 tokens of the 200 allowed per "
                    "scenario (--max-tokens)")
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
    cached = {"usage": {"prompt_tokens": 50, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 30}}}
    assert vars(tokens_of(json.dumps(cached).encode())) == {"input": 50, "output": 5, "cached": 30}
    chat_stream = sse({"choices": [{"delta": {"content": "hi"}}]}, {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}})
    assert tokens_of(chat_stream).total == 10
    anthropic = sse({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1,
                                                                    "cache_read_input_tokens": 90}}},
                    {"type": "message_delta", "usage": {"output_tokens": 15}})
    assert vars(tokens_of(anthropic)) == {"input": 100, "output": 15, "cached": 90}
    responses = sse({"type": "response.completed", "response": {"usage": {"input_tokens": 12, "output_tokens": 4}}})
    assert tokens_of(responses).total == 16
    gemini = sse({"usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 1}},
                 {"usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 6}})
    assert tokens_of(gemini).total == 14
    assert tokens_of(b"").total == 0 and tokens_of(b"not json").total == 0
    assert tokens_of(b'{"usage": {"prompt_tokens": -5, "completion_tokens": true}}').total == 0


@pytest.mark.parametrize("limit", [10.0, 30.0, 120.0, 420.0, 600.0, 1800.0, 7 * 86400.0])
@pytest.mark.parametrize("wanted", [budget.CallBudget(300.0, 4, 60.0), budget.CallBudget(30.0, 10, 5.0),
                                    budget.CallBudget(900.0, 0, 60.0)])
def test_one_call_with_its_retries_fits_the_scenario_limit(limit: float, wanted: budget.CallBudget) -> None:
    fitted = budget.fit_call(wanted, limit)
    assert fitted.worst_case_s() <= budget.call_window(limit)
    assert fitted.timeout_s <= wanted.timeout_s and fitted.max_retries <= wanted.max_retries
    assert fitted.max_retries >= min(wanted.max_retries, budget.MIN_RETRIES)  # a 429 is retried
    assert budget.relay_timeout(limit) <= limit * budget.CALL_WINDOW_SHARE
    if wanted.worst_case_s() <= budget.call_window(limit):
        assert fitted == wanted  # what fits is left alone


def test_the_default_request_budget_fits_the_default_scenario_limit() -> None:
    fitted = budget.fit_call(budget.CallBudget(300.0, 4, 60.0), 420.0)
    assert fitted.timeout_s >= budget.MIN_REQUEST_TIMEOUT_S and fitted.max_retries >= 1
    assert budget.fit_call(budget.CallBudget(300.0, 4, 60.0), None) == budget.CallBudget(300.0, 4, 60.0)
    assert budget.relay_timeout(None) == budget.RELAY_TIMEOUT_S


def test_the_built_in_runtime_takes_its_request_budget_from_the_scenario_limit() -> None:
    env = {"GAIA2_AGENT_PROVIDER": "openai-compat", "GAIA2_AGENT_MODEL": "m", "GAIA2_AGENT_BASE_URL": "http://x/v1",
           "GAIA2_SCENARIO_TIMEOUT": "420", "GAIA2_AGENT_OPTIONS": '{"request_timeout_s": 600, "max_retries": 6}'}
    options = Settings.from_env(env).options
    fitted = budget.CallBudget(options.request_timeout_s, options.max_retries, options.retry_max_s)
    assert fitted.worst_case_s() <= 420 * budget.CALL_WINDOW_SHARE
    assert Settings.from_env({**env, "GAIA2_SCENARIO_TIMEOUT": "0"}).options.request_timeout_s == 600
