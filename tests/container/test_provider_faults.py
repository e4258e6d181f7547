"""The classification of provider outcomes (daemon/provider/faults.py), with the red team's cases:
nothing the agent controls (path, body, model name, key, parameters) may turn its own refusal into
a configuration fault, which would stop the job and buy the run a second try under --retry."""

from __future__ import annotations

import json

import pytest

from gaia2_container.daemon.provider.faults import (  # noqa: E402
    AGENT,
    CONFIGURATION,
    CONTEXT_OVERFLOW,
    OK,
    RATE_LIMIT,
    SERVER_ERROR,
    UNANSWERED,
    Request,
    RunnerSetup,
    classify,
    error_message,
)

MODEL = "gpt-test"
KEY = "sk-configured"
SETUP = RunnerSetup(model=MODEL, agent_key=KEY, keyless_placeholders=frozenset({"gaia2-no-key"}))
NOT_FOUND = json.dumps(
    {"error": {"message": f"The model `{MODEL}` does not exist", "code": "model_not_found"}}
)
CONTEXT = json.dumps(
    {
        "error": {
            "message": "This model's maximum context length is 8192 tokens",
            "code": "context_length_exceeded",
        }
    }
)


def request(
    path: str = "/chat/completions", model: str | None = MODEL, key: str | None = KEY, **body
) -> Request:
    doc = {"model": model, "messages": [], **body} if model is not None else {"messages": [], **body}
    return Request(path, doc, (f"Bearer {key}",) if key is not None else ())


def kind(
    req: Request,
    status: int | None,
    body: str = "{}",
    answered_before: bool = False,
    setup: RunnerSetup = SETUP,
) -> str:
    return classify(setup, req, status, body, answered_before).kind


def test_availability_kinds() -> None:
    assert kind(request(), 200) == OK
    assert kind(request(), None) == UNANSWERED
    assert kind(request(), 429) == RATE_LIMIT
    for status in (500, 502, 503, 504, 529, 408, 599):
        assert kind(request(), status) == SERVER_ERROR, status


def test_unknown_model_is_a_configuration_fault_with_the_providers_words() -> None:
    verdict = classify(
        SETUP, request(), 404, NOT_FOUND, answered_before=True, url="https://api.example/v1/chat/completions"
    )
    assert verdict.kind == CONFIGURATION
    assert MODEL in verdict.reason and "does not exist" in verdict.reason and "HTTP 404" in verdict.reason
    # Other providers' wording: Anthropic's not_found_error, Ollama, Gemini.
    anthropic = json.dumps(
        {"type": "error", "error": {"type": "not_found_error", "message": f"model: {MODEL}"}}
    )
    assert kind(request("/messages"), 404, anthropic, True) == CONFIGURATION
    assert (
        kind(request(), 404, json.dumps({"error": f'model "{MODEL}" not found, try pulling it first'}), True)
        == CONFIGURATION
    )
    gemini = Request(f"/models/{MODEL}:generateContent", {"contents": []}, ("x",))
    assert (
        kind(gemini, 404, json.dumps({"error": {"message": f"models/{MODEL} is not found"}}), True)
        == CONFIGURATION
    )


def test_a_first_404_on_the_configured_endpoint_is_a_configuration_fault_a_later_one_is_not() -> None:
    assert kind(request(), 404, "Not Found", answered_before=False) == CONFIGURATION
    assert kind(request(), 404, "Not Found", answered_before=True) == AGENT


def test_the_agent_cannot_fake_an_unknown_model() -> None:
    # A model name it changed in the body: the provider's verdict is on the agent's choice.
    assert kind(request(model="gpt-made-up"), 404, NOT_FOUND) == AGENT
    assert kind(request(model=None), 404, NOT_FOUND) == AGENT
    # A path it chose below the endpoint (only the API paths count).
    for path in ("/models", "/v1/chat/completions/x", "/echo?model=gpt-test", "/status/404", "/files"):
        assert kind(request(path), 404, NOT_FOUND) == AGENT, path
    # A Gemini path naming another model.
    assert kind(Request("/models/other:generateContent", {}, ()), 404, NOT_FOUND) == AGENT
    # No configured model at all (an agent that chose its own): nothing counts as configuration.
    assert kind(request(), 404, NOT_FOUND, setup=RunnerSetup(model=None, agent_key=KEY)) == AGENT


def test_auth_refused_for_the_configured_key_only() -> None:
    assert kind(request(), 401, '{"error": {"message": "Incorrect API key provided"}}', True) == CONFIGURATION
    assert kind(request(), 403, "{}", True) == CONFIGURATION
    assert kind(Request("/messages", {"model": MODEL}, (KEY,)), 401) == CONFIGURATION  # x-api-key
    # The agent sent a key of its own making, or none: its own business.
    assert kind(request(key="sk-agent-made-up"), 401) == AGENT
    assert kind(request(key=None), 401) == AGENT
    # The key beside a made-up credential: which one the provider refused is unknown, so the agent's.
    assert (
        kind(Request("/chat/completions", {"model": MODEL}, (f"Bearer {KEY}", "Bearer other")), 401) == AGENT
    )


def test_auth_on_a_keyless_endpoint() -> None:
    keyless = RunnerSetup(model=MODEL, keyless=True, keyless_placeholders=frozenset({"gaia2-no-key"}))
    assert kind(request(key=None), 401, setup=keyless) == CONFIGURATION
    assert kind(request(key="gaia2-no-key"), 401, setup=keyless) == CONFIGURATION
    assert kind(request(key="sk-agent-made-up"), 401, setup=keyless) == AGENT


def test_payment_and_quota_are_configuration_faults() -> None:
    assert kind(request(), 402, '{"error": {"message": "Insufficient credits"}}') == CONFIGURATION
    quota = json.dumps(
        {"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}}
    )
    assert kind(request(), 429, quota, True) == CONFIGURATION
    assert kind(request(model="other"), 429, quota, True) == RATE_LIMIT  # not the runner's request


def test_a_400_is_never_a_configuration_fault_whatever_its_text_says() -> None:
    """A 400 may echo the agent's own request ("Unrecognized request argument supplied:
    model_not_found"): its words prove nothing about the runner's setup (the preflight checks the
    runner's parameters and model before the job starts)."""
    echoed = json.dumps({"error": {"message": "Unrecognized request argument supplied: model_not_found"}})
    assert kind(request(model_not_found=1), 400, echoed) == AGENT
    assert (
        kind(request(), 400, json.dumps({"error": {"message": f"{MODEL} is not a valid model ID"}}), True)
        == AGENT
    )
    param = json.dumps(
        {"error": {"message": "Unsupported value: 'temperature' does not support 0.2 with this model"}}
    )
    assert kind(request(temperature=0.2), 400, param) == AGENT


def test_a_401_counts_only_when_every_credential_sent_is_the_configured_key() -> None:
    both = Request("/chat/completions?key=" + KEY, {"model": MODEL, "messages": []}, ("Bearer junk", KEY))
    assert kind(both, 401, '{"error": {"message": "Incorrect API key provided"}}') == AGENT
    assert kind(request(), 401, '{"error": {"message": "Incorrect API key provided"}}') == CONFIGURATION


def test_context_overflow_is_the_agents_with_the_reason() -> None:
    verdict = classify(SETUP, request(), 400, CONTEXT, answered_before=True)
    assert verdict.kind == CONTEXT_OVERFLOW and "maximum context length is 8192" in verdict.reason
    llama = '{"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it"}}'
    assert kind(request(), 400, llama, True) == CONTEXT_OVERFLOW
    assert (
        kind(request(), 400, '{"error": {"message": "prompt is too long: 210000 tokens > 200000 maximum"}}')
        == CONTEXT_OVERFLOW
    )
    # Even on a first request, and whatever the path: never an infrastructure error.
    assert kind(request("/anything"), 413, CONTEXT) == CONTEXT_OVERFLOW


@pytest.mark.parametrize("status", [400, 404, 409, 413, 415, 422])
def test_other_refusals_stay_the_agents(status: int) -> None:
    assert kind(request(), status, '{"error": {"message": "messages[3].role is invalid"}}', True) == AGENT


def test_error_message_reads_every_shape() -> None:
    assert error_message(NOT_FOUND) == f"The model `{MODEL}` does not exist"
    assert error_message('{"message": "m"}') == "m"
    assert error_message('{"error": "plain"}') == "plain"
    assert error_message("  <html>bad   gateway</html> ") == "<html>bad gateway</html>"
    assert error_message("") == "no message"
    assert len(error_message("x" * 5000)) <= 301
