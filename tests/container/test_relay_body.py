"""What the relay reads in a request body (daemon/relay/body.py: the pinned model, the usage a stream
asks for) and how the token budget holds calls in flight (daemon/provider/token_budget.py, usage.reservation)."""

from __future__ import annotations

import json

from gaia2_container.daemon.provider.faults import Request, RunnerSetup
from gaia2_container.daemon.provider.ledger import ProviderLedger
from gaia2_container.daemon.provider.usage import DEFAULT_MAX_OUTPUT_TOKENS, Tokens, reservation, tokens_of
from gaia2_container.daemon.relay.body import model_refusal, parse, with_stream_usage

URL = "https://api.example/v1/chat/completions"
MODEL = "gpt-4o-mini"


def request(path: str, body: object) -> Request:
    return Request(path, body, ("Bearer k",))


def refusal(path: str, raw: bytes, pinned: str | None = MODEL) -> str | None:
    parsed, repeated = parse(raw)
    return model_refusal(pinned, request(path, parsed), repeated)


def test_only_the_configured_model_is_forwarded() -> None:
    assert refusal("/v1/chat/completions", b'{"model": "gpt-4o-mini"}') is None
    assert refusal("/chat/completions", b'{"model": "o1-pro"}') == (
        "this run's model is 'gpt-4o-mini'; the request names 'o1-pro': the relay forwards calls to the "
        "configured model only"
    )
    assert "names no model" in (refusal("/messages", b'{"messages": []}') or "")
    assert "not a JSON object" in (refusal("/responses", b"model=o1-pro") or "")
    assert "repeats the key 'model'" in (
        refusal("/chat/completions", b'{"model": "gpt-4o-mini", "model": "o1"}') or ""
    )
    assert "repeats the key 'x'" in (
        refusal("/chat/completions", b'{"model": "gpt-4o-mini", "m": [{"x": 1, "x": 2}]}') or ""
    )
    assert refusal("/chat/completions", b'\xef\xbb\xbf {"model": "gpt-4o-mini"}') is None  # a BOM, a space
    # OpenRouter's provider-qualified name is a name like any other: compared exactly.
    assert refusal("/chat/completions", b'{"model": "openai/gpt-4o-mini"}', "openai/gpt-4o-mini") is None
    assert refusal("/chat/completions", b'{"model": "gpt-4o-mini"}', "openai/gpt-4o-mini") is not None
    # No model configured: nothing pinned. No model call: nothing to pin (they cost nothing).
    assert refusal("/chat/completions", b'{"model": "o1-pro"}', None) is None
    assert refusal("/v1/messages/count_tokens", b'{"model": "claude-opus"}') is None
    assert refusal("/v1/models/o1-pro", b"") is None


def test_the_gemini_path_names_the_model() -> None:
    pinned = "gemini-2.5-flash"
    assert (
        refusal("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", b'{"contents": []}', pinned)
        is None
    )
    assert refusal("/v1beta/models/gemini-2.5-flash:generateContent", b"{}", "models/" + pinned) is None
    assert (
        refusal("/models/gemini%2D2.5-flash:generateContent", b"{}", pinned) is None
    )  # as the provider decodes it
    assert "'gemini-2.5-pro'" in (
        refusal("/v1beta/models/gemini-2.5-pro:generateContent", b"{}", pinned) or ""
    )
    assert (
        refusal("/models/gemini-2.5-flash:generateContent", b'{"model": "models/gemini-2.5-flash"}', pinned)
        is None
    )
    assert (
        refusal("/models/gemini-2.5-flash:generateContent", b'{"model": "gemini-2.5-pro"}', pinned)
        is not None
    )


def test_a_streamed_chat_request_asks_for_its_usage() -> None:
    raw = json.dumps(
        {"model": MODEL, "stream": True, "stream_options": {"x": 1}, "messages": [{"content": "héllo"}]}
    ).encode()
    sent = with_stream_usage(request("/v1/chat/completions", parse(raw)[0]), raw)
    assert json.loads(sent) == {**json.loads(raw), "stream_options": {"x": 1, "include_usage": True}}
    assert "héllo" in sent.decode()
    asked = json.dumps({"model": MODEL, "stream": True, "stream_options": {"include_usage": True}}).encode()
    for path, body in (
        ("/chat/completions", asked),  # asked already: as sent
        ("/chat/completions", b'{"model": "m", "stream": false}'),
        ("/responses", b'{"model": "m", "stream": true}'),  # reports usage by itself
        ("/messages", b'{"model": "m", "stream": true}'),
    ):
        assert with_stream_usage(request(path, parse(body)[0]), body) is body
    lone = b'{"model": "m", "stream": true, "messages": [{"content": "\\ud800"}]}'  # a lone surrogate
    assert json.loads(with_stream_usage(request("/chat/completions", parse(lone)[0]), lone))[
        "stream_options"
    ] == {"include_usage": True}


def test_a_reservation_is_the_output_limit_times_the_choices_plus_the_prompt() -> None:
    assert reservation({"max_tokens": 100}, 400) == Tokens(100, 100)
    assert reservation({"max_tokens": 100, "max_completion_tokens": 300, "n": 3}, 0) == Tokens(0, 900)
    assert reservation({"max_output_tokens": 50}, 8) == Tokens(2, 50)
    assert reservation({"generationConfig": {"maxOutputTokens": 64, "candidateCount": 2}}, 0) == Tokens(
        0, 128
    )
    assert reservation({"generation_config": {"max_output_tokens": 64}}, 0) == Tokens(0, 64)
    assert reservation({}, 0) == Tokens(0, DEFAULT_MAX_OUTPUT_TOKENS)
    assert reservation(None, 40) == Tokens(10, DEFAULT_MAX_OUTPUT_TOKENS)
    # A limit the provider may read otherwise ("1e9", -1, true) counts as the default.
    assert reservation({"max_tokens": "1000000"}, 0).output == DEFAULT_MAX_OUTPUT_TOKENS
    assert reservation({"max_tokens": 10, "max_completion_tokens": -1}, 0).output == DEFAULT_MAX_OUTPUT_TOKENS


def test_usage_in_every_stream_shape() -> None:
    chat = (
        b'data: {"choices": [{"delta": {"content": "a"}}], "usage": null}\n\n'
        b'data: {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}\n\ndata: [DONE]\n\n'
    )
    assert vars(tokens_of(chat)) == {"input": 9, "output": 4, "cached": 0}
    responses = (
        b'event: response.created\ndata: {"type": "response.created", "response": {"usage": null}}\n\n'
        b'event: response.completed\ndata: {"type": "response.completed", "response": {"usage": '
        b'{"input_tokens": 5, "output_tokens": 6, "input_tokens_details": {"cached_tokens": 2}}}}\n\n'
    )
    assert vars(tokens_of(responses)) == {"input": 5, "output": 6, "cached": 2}
    gemini_array = json.dumps(
        [
            {"usageMetadata": {"promptTokenCount": 7}},
            {"usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 3}},
        ]
    ).encode()
    assert tokens_of(gemini_array).total == 10
    assert tokens_of(b'data: {"choices": [{"delta": {"content": "a"}}]}\n\ndata: [DONE]\n\n').total == 0


def chat(body: dict) -> Request:
    return request("/chat/completions", {"model": MODEL, **body})


def test_calls_in_flight_hold_the_shared_budget() -> None:
    told: list[str] = []
    agent = ProviderLedger(RunnerSetup(model=MODEL), token_budget=1000, on_budget=told.append)
    experts = ProviderLedger(RunnerSetup(model=MODEL), token_budget=1000, on_budget=told.append)
    agent.share_budget(experts)
    first = chat({"max_tokens": 900})
    assert agent.reserve(first, 400) is None  # 100 + 900 held
    assert experts.reserve(chat({"max_tokens": 1}), 4) is not None  # the experts' call waits for nothing
    assert told == [
        "token budget exhausted: the agent's and its expert agents' model calls used 0 tokens (and "
        "calls in flight hold 1000 more) of the 1000 allowed per scenario (--max-tokens)"
    ]
    agent.finish(
        agent.begin(first), URL, 200, None, b'{"usage": {"prompt_tokens": 90, "completion_tokens": 10}}'
    )
    agent.release(first)
    assert agent.budget.state() == (100, 0) and experts.reserve(chat({}), 0) is None


def test_an_answer_without_usage_or_cut_short_is_charged_its_reservation() -> None:
    book = ProviderLedger(RunnerSetup(model=MODEL))
    silent, cut, failed = chat({"max_tokens": 50}), chat({"max_tokens": 70}), chat({"max_tokens": 90})
    for call in (silent, cut, failed):
        assert book.reserve(call, 40) is None
    book.finish(book.begin(silent), URL, 200, None, b'{"choices": []}')
    book.cut_short(cut)  # an Anthropic stream cut after message_start: only its input was reported
    book.finish(
        book.begin(cut),
        URL,
        200,
        None,
        b'data: {"message": {"usage": {"input_tokens": 30, "output_tokens": 1}}}',
    )
    book.finish(book.begin(failed), URL, 500, None, b'{"error": {}}')  # no answer: nothing charged
    for call in (silent, cut, failed):
        book.release(call)
    assert book.summary()["tokens"] == {"input": 10 + 30, "output": 50 + 70, "cached": 0}
    assert book.budget.state() == (160, 0)
