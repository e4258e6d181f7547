"""Trace parsing: every provider wire format (JSON and streamed) lands in one normalised shape."""

from __future__ import annotations

import json

import pytest

from fake_llm import wire
from gaia2_runner.output.read.trace_parsers import parse_body, parse_document, parse_line, read_trace
from viewer_synth import FORMATS, body

REPLY = {
    "text": "I'll add the dentist appointment now.",
    "tool_calls": [
        {
            "name": "CalendarApp__add_calendar_event",
            "arguments": {"title": "Dentist", "start": "2024-10-02 10:00:00"},
        }
    ],
}
USAGE = {"input": 1200, "output": 85, "cached": 1024}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_wire_format_gives_text_tool_call_and_usage(fmt: str) -> None:
    _, _, raw = body(fmt, REPLY, USAGE, model="model-x")
    parsed = parse_body(raw)
    assert parsed.warnings == []
    assert parsed.text == REPLY["text"]
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
        ("CalendarApp__add_calendar_event", {"title": "Dentist", "start": "2024-10-02 10:00:00"})
    ]
    assert parsed.usage.output == 85
    assert parsed.usage.cache_read == 1024
    # Anthropic's input_tokens excludes cache reads; the viewer counts the whole prompt.
    assert parsed.usage.input == (1200 + 1024 if fmt.startswith("anthropic") else 1200)
    assert parsed.model == "model-x"
    assert parsed.finish_reason in {"tool_calls", "completed", "tool_use", "STOP"}
    assert ("stream" in parsed.format) == (fmt.endswith("_sse") or fmt == "gemini_array")


def test_openai_chat_sse_with_vllm_reasoning_and_split_tool_arguments() -> None:
    chunks = [
        {
            "id": "c1",
            "model": "Qwen/Qwen3-32B",
            "choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "The user wants "}}],
        },
        {
            "id": "c1",
            "model": "Qwen/Qwen3-32B",
            "choices": [{"index": 0, "delta": {"reasoning_content": "a search."}}],
        },
        {
            "id": "c1",
            "model": "Qwen/Qwen3-32B",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "chatcmpl-tool-1",
                                "type": "function",
                                "function": {"name": "EmailClientV2__search_emails", "arguments": '{"que'},
                            }
                        ]
                    },
                }
            ],
        },
        {
            "id": "c1",
            "model": "Qwen/Qwen3-32B",
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'ry": "Maria"}'}}]},
                }
            ],
        },
        {
            "id": "c1",
            "model": "Qwen/Qwen3-32B",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        },
        {
            "id": "c1",
            "model": "Qwen/Qwen3-32B",
            "choices": [],
            "usage": {
                "prompt_tokens": 3000,
                "completion_tokens": 41,
                "completion_tokens_details": {"reasoning_tokens": 12},
            },
        },
    ]
    raw = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    parsed = parse_body(raw)
    assert parsed.reasoning == ["The user wants a search."]
    assert parsed.tool_calls[0].arguments == {"query": "Maria"}
    assert parsed.tool_calls[0].id == "chatcmpl-tool-1"
    assert (parsed.usage.input, parsed.usage.output, parsed.usage.reasoning) == (3000, 41, 12)
    assert parsed.finish_reason == "tool_calls"


def test_openai_chat_json_with_openrouter_reasoning_and_content_parts() -> None:
    doc = {
        "id": "gen-1",
        "model": "deepseek/deepseek-r1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "reasoning": "Think first.",
                    "content": [{"type": "text", "text": "Done."}],
                },
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    }
    parsed = parse_body(json.dumps(doc))
    assert (parsed.text, parsed.reasoning, parsed.finish_reason) == ("Done.", ["Think first."], "stop")


def test_openai_responses_reasoning_summary_and_sse_without_completed_event() -> None:
    doc = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-5",
        "output": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "**Planning** the booking."}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_9",
                "name": "CabApp__order_ride",
                "arguments": '{"to": "airport"}',
            },
        ],
        "usage": {
            "input_tokens": 500,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 60,
            "output_tokens_details": {"reasoning_tokens": 40},
        },
    }
    parsed = parse_body(json.dumps(doc))
    assert parsed.reasoning == ["**Planning** the booking."]
    assert parsed.tool_calls[0].id == "call_9" and parsed.tool_calls[0].arguments == {"to": "airport"}
    assert parsed.usage.reasoning == 40
    cut = [
        {"type": "response.created", "response": {"model": "gpt-5"}},
        {"type": "response.output_text.delta", "delta": "Hel"},
        {"type": "response.output_text.delta", "delta": "lo"},
    ]
    partial = parse_body("".join(f"event: {c['type']}\ndata: {json.dumps(c)}\n\n" for c in cut))
    assert partial.text == "Hello" and partial.model == "gpt-5"
    assert "without response.completed" in partial.warnings[0]


def test_anthropic_stream_with_thinking_and_error_event() -> None:
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [],
                    "usage": {
                        "input_tokens": 20,
                        "cache_read_input_tokens": 1000,
                        "cache_creation_input_tokens": 30,
                        "output_tokens": 1,
                    },
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "Let me check "},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "the calendar."},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": "EqQ="},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Checking."}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 57}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    raw = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    parsed = parse_body(raw)
    assert parsed.reasoning == ["Let me check the calendar."]
    assert parsed.text == "Checking."
    assert (parsed.usage.input, parsed.usage.output, parsed.usage.cache_read, parsed.usage.cache_write) == (
        1050,
        57,
        1000,
        30,
    )
    assert parsed.finish_reason == "end_turn"
    overloaded = parse_body(
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    )
    assert overloaded.error == "Overloaded"


def test_gemini_thoughts_and_error_body() -> None:
    doc = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "Reasoning here", "thought": True}, {"text": "Answer."}],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "thoughtsTokenCount": 30},
        "modelVersion": "gemini-2.5-pro",
    }
    parsed = parse_body(json.dumps(doc))
    assert (parsed.text, parsed.reasoning, parsed.usage.output, parsed.usage.reasoning) == (
        "Answer.",
        ["Reasoning here"],
        40,
        30,
    )
    err = parse_body(json.dumps(wire.error_body("gemini", 429, "Resource has been exhausted")))
    assert err.error == "Resource has been exhausted"


def test_gemini_array_stream_cut_off_keeps_complete_items() -> None:
    _, _, raw = body("gemini_array", REPLY, USAGE)
    cut = raw[: raw.rfind("{") + 10]  # the last item is half written
    parsed = parse_body(cut)
    assert parsed.text and parsed.text in REPLY["text"]


def test_pre_parsed_response_and_unknown_shapes() -> None:
    normalised = parse_document(
        {
            "text": "hi",
            "tool_calls": [{"name": "f", "arguments": '{"a": 1}'}],
            "usage": {"input_tokens": 3, "output_tokens": 1},
        }
    )
    assert (normalised.text, normalised.tool_calls[0].arguments, normalised.usage.input) == (
        "hi",
        {"a": 1},
        3,
    )
    assert parse_document(wire.chat_json(REPLY, "m", USAGE)).tool_calls
    assert parse_body("<html>502 Bad Gateway</html>").warnings
    assert parse_body("").warnings == ["empty response body"]


def test_bad_lines_never_raise_and_keep_raw_text(tmp_path) -> None:
    _, url, raw = body("anthropic", REPLY, USAGE)
    good = {
        "seq": 0,
        "timestamp": 1.0,
        "type": "llm_call",
        "url": url,
        "latency_ms": 10,
        "http_status": 200,
        "request": {"system": "sys", "messages": [{"role": "user", "content": "task"}]},
        "raw_response": raw,
    }
    weird = {"seq": 2, "type": "llm_call", "request": "not an object", "raw_response": "data: {not json\n\n"}
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps(good) + '\n{"seq": 1, truncated\n' + json.dumps(weird) + "\n[1, 2]\n")
    calls = read_trace(path)
    assert len(calls) == 4
    assert calls[0].response.tool_calls and [m.role for m in calls[0].messages] == ["system", "user"]
    assert calls[1].raw_line and "not JSON" in calls[1].warnings[0]
    assert calls[2].warnings and calls[2].raw_response == "data: {not json\n\n"
    assert calls[3].raw_line == "[1, 2]"


def test_recorded_usage_fills_what_the_body_lacks() -> None:
    line = json.dumps(
        {
            "seq": 0,
            "type": "llm_call",
            "raw_response": json.dumps({"choices": [{"message": {"content": "x"}}]}),
            "usage": {"input_tokens": 7, "output_tokens": 2, "cache_read_tokens": None},
        }
    )
    call = parse_line(line)
    assert (call.response.usage.input, call.response.usage.output) == (7, 2)


@pytest.mark.parametrize(
    "request_body, roles",
    [
        (
            {
                "messages": [
                    {"role": "system", "content": "s"},
                    {"role": "user", "content": "u"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{}"}}],
                    },
                    {"role": "tool", "tool_call_id": "1", "content": "r"},
                ]
            },
            ["system", "user", "assistant", "tool"],
        ),
        (
            {
                "instructions": "s",
                "input": [
                    {"role": "user", "content": [{"type": "input_text", "text": "u"}]},
                    {"type": "function_call", "call_id": "1", "name": "f", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "1", "output": "r"},
                ],
            },
            ["system", "user", "assistant", "tool"],
        ),
        (
            {
                "system": [{"type": "text", "text": "s"}],
                "messages": [
                    {"role": "user", "content": "u"},
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "1", "name": "f", "input": {}}],
                    },
                    {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "1", "content": "r"}],
                    },
                ],
            },
            ["system", "user", "assistant", "tool"],
        ),
        (
            {
                "systemInstruction": {"parts": [{"text": "s"}]},
                "contents": [
                    {"role": "user", "parts": [{"text": "u"}]},
                    {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                    {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"r": 1}}}]},
                ],
            },
            ["system", "user", "assistant", "tool"],
        ),
    ],
)
def test_request_messages_of_each_provider(request_body: dict, roles: list[str]) -> None:
    call = parse_line(
        json.dumps({"seq": 0, "type": "llm_call", "request": request_body, "raw_response": "{}"})
    )
    assert [m.role for m in call.messages] == roles
    assert call.messages[2].tool_calls[0].name == "f"
    assert call.messages[3].tool_result_for in ("1", "f")
