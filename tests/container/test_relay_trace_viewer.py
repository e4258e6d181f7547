"""The trace viewer reads what the relay records: each wire format's stream as it passed through a
real relay (tests/support/fake_llm as the provider), real stream shapes the fake does not produce
(thinking, reasoning, Gemini thought signatures), and non-LLM requests (model lists, token counts)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import httpx
import pytest

from fake_llm.server import FakeLLM
from gaia2_container.daemon.relay import Relay, serve_relay  # noqa: E402
from gaia2_container.daemon.relay.trace import Capture, RelayTrace  # noqa: E402
from gaia2_runner.output.read.trace_parsers import parse_line, read_trace
from gaia2_runner.viewer import Site
from viewer_synth import write_scenario

REPLY = {
    "text": "Booking it now.",
    "tool_calls": [{"name": "shell", "arguments": {"cmd": "calendar add-event --title X"}}],
}
# (route, path, body) of one streamed request per wire format, as each harness sends it.
STREAMS = [
    (
        "anthropic",
        "/v1/messages",
        {
            "model": "claude-x",
            "stream": True,
            "max_tokens": 100,
            "messages": [{"role": "user", "content": "book it"}],
        },
    ),
    (
        "responses",
        "/v1/responses",
        {
            "model": "gpt-5-codex",
            "stream": True,
            "input": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "book it"}]}
            ],
        },
    ),
    (
        "gemini",
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": "book it"}]}]},
    ),
    (
        "chat",
        "/v1/chat/completions",
        {
            "model": "qwen",
            "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "book it"}],
        },
    ),
]


@pytest.fixture
def relayed(tmp_path: Path):
    fake = FakeLLM({route: [REPLY] for route, _, _ in STREAMS})
    fake.start()
    trace = RelayTrace(tmp_path / "trace.jsonl", "fake")
    server = serve_relay(Relay(f"http://127.0.0.1:{fake.port}", trace=trace), "127.0.0.1", 0)
    yield f"http://127.0.0.1:{server.server_address[1]}", trace
    server.shutdown()
    fake.stop()


def test_every_wire_format_as_relayed_parses_into_text_tool_calls_and_usage(relayed) -> None:
    base, trace = relayed
    with httpx.Client(base_url=base, trust_env=False, timeout=30) as http:
        for _, path, body in STREAMS:
            with http.stream("POST", path, json=body) as response:
                assert response.status_code == 200 and b"".join(response.iter_raw())
    raw = [json.loads(line)["raw_response"] for line in trace.path.read_text().splitlines()]
    assert all(r.startswith(("event:", "data:")) for r in raw)  # the streams, as streamed
    calls = [parse_line(line) for line in trace.path.read_text().splitlines()]
    assert len(read_trace(trace.path)) == 4
    assert [c.model for c in calls] == ["claude-x", "gpt-5-codex", "gemini-2.5-pro", "qwen"]
    for call in calls:
        assert call.warnings == [], (call.response.format, call.warnings)
        assert call.response.format.endswith("(stream)") or "stream" in call.response.format, (
            call.response.format
        )
        assert call.response.text == "Booking it now.", call.response.format
        assert [(t.name, t.arguments) for t in call.response.tool_calls] == [
            ("shell", {"cmd": "calendar add-event --title X"})
        ]
        assert call.response.usage.input and call.response.usage.output, call.response.format
        assert call.messages and call.messages[-1].text == "book it", call.response.format


def _record(trace: RelayTrace, path: str, request: object, response: str, status: int = 200) -> None:
    sent, received = Capture(), Capture()
    sent.add(json.dumps(request).encode() if request is not None else b"")
    received.add(response.encode())
    trace.record(
        url="https://api.example.com" + path,
        path=path,
        started=1.7e9,
        latency_ms=5,
        http_status=status,
        request=sent,
        response=received,
    )


def _sse(*events: dict, named: bool = True, crlf: bool = False) -> str:
    end = "\r\n" if crlf else "\n"
    return "".join(
        (f"event: {e['type']}{end}" if named else "") + f"data: {json.dumps(e)}{end}{end}" for e in events
    )


ANTHROPIC_THINKING = _sse(
    {
        "type": "message_start",
        "message": {
            "model": "claude-opus",
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 1},
        },
    },
    {"type": "ping"},
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "The user wants"},
    },
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCg"}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}},
    },
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"command": "ls"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 42}},
    {"type": "message_stop"},
)
# Codex's Responses stream: reasoning, a function call, and a final event whose output is empty.
RESPONSES_CODEX = _sse(
    {"type": "response.created", "response": {"id": "r1", "model": "gpt-5-codex", "output": []}},
    {"type": "response.reasoning_summary_text.delta", "delta": "Plan"},
    {
        "type": "response.output_item.done",
        "item": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Plan"}]},
    },
    {
        "type": "response.output_item.done",
        "item": {
            "type": "function_call",
            "name": "shell",
            "call_id": "c1",
            "arguments": '{"command": ["ls"]}',
        },
    },
    {
        "type": "response.completed",
        "response": {
            "id": "r1",
            "model": "gpt-5-codex",
            "status": "completed",
            "output": [],
            "usage": {"input_tokens": 30, "output_tokens": 7},
        },
    },
)
GEMINI_THOUGHTS = _sse(
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Thinking…", "thought": True}]}}],
        "usageMetadata": {"promptTokenCount": 12},
    },
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {"name": "run_shell_command", "args": {"command": "ls"}},
                            "thoughtSignature": "CiQB",
                        }
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 3, "thoughtsTokenCount": 4},
    },
    named=False,
    crlf=True,
)


def test_real_stream_shapes_and_non_llm_requests_render(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path / "s1", "s1", random.Random(3), n_calls=0)
    trace = RelayTrace(scenario / "trace.jsonl", "mixed")
    _record(trace, "/v1/models", None, json.dumps({"object": "list", "data": [{"id": "gpt-5"}]}))
    _record(
        trace, "/v1/messages/count_tokens", {"model": "claude-opus", "messages": []}, '{"input_tokens": 17}'
    )
    _record(
        trace,
        "/v1/messages",
        {"model": "claude-opus", "stream": True, "messages": [{"role": "user", "content": "hi"}]},
        ANTHROPIC_THINKING,
    )
    _record(trace, "/v1/responses", {"model": "gpt-5-codex", "stream": True, "input": "hi"}, RESPONSES_CODEX)
    _record(
        trace,
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        {"contents": []},
        GEMINI_THOUGHTS,
    )
    _record(
        trace,
        "/v1/messages",
        {"model": "claude-opus"},
        '{"type": "error", "error": {"message": "overloaded"}}',
        529,
    )
    trace.total_cap = trace.path.stat().st_size + 10
    _record(trace, "/v1/messages", {"model": "claude-opus"}, "{}")  # past the cap: the marker line
    models, count, anthropic, responses, gemini, error, marker = read_trace(trace.path)
    assert models.response.format == "other" and not models.warnings and "1 models" in models.response.text
    assert count.response.format == "other" and "17 tokens" in count.response.text and not count.warnings
    assert count.response.usage.input is None  # a count is no usage
    assert anthropic.response.reasoning == ["The user wants"] and anthropic.response.tool_calls[
        0
    ].arguments == {"command": "ls"}
    assert (anthropic.response.usage.input, anthropic.response.usage.output) == (15, 42)
    assert responses.response.reasoning == ["Plan"] and responses.response.tool_calls[0].name == "shell"
    assert responses.response.usage.output == 7
    assert gemini.response.reasoning == ["Thinking…"] and gemini.response.tool_calls[0].arguments == {
        "command": "ls"
    }
    assert gemini.response.usage.output == 7 and gemini.model == "gemini-2.5-pro"
    assert error.response.error == "overloaded" and error.http_status == 529
    assert marker.warnings and "not recorded" in marker.warnings[0]
    Site(tmp_path).refresh()
    page = (scenario / "trace.html").read_text()
    assert "run_shell_command" in page and "The user wants" in page and "not recorded" in page
