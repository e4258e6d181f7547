"""Codex CLI (npm @openai/codex): what only this harness does, on the runs the common harness tests
share (tests/e2e/test_harnesses.py, tests/support/harness_cases.py).

The fake provider speaks the OpenAI Responses API as a stream (what Codex sends: POST
<base>/responses with "stream": true) and scripts Codex's own shell tool, `exec_command`; Codex's
final message (--output-last-message) is the reply to the user. The container reaches the fake
through the daemon's model relay, which records every call into trace.jsonl.
"""

from __future__ import annotations

import json

import pytest

from gaia2_runner.viewer import Site
from harness_cases import CALENDAR, CASES, MULTI_TURN, TURN1, TURN2
from harness_support import HOST, tool_calls

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

CASE = CASES["codex"]


def inputs(request: dict) -> list[dict]:
    return request["body"]["input"]


def texts(request: dict, role: str) -> list[str]:
    return [
        part.get("text", "")
        for item in inputs(request)
        if item.get("type") == "message" and item.get("role") == role
        for part in item.get("content") or []
    ]


def test_only_streamed_responses_calls_reach_the_provider_and_the_trace_shows_every_call(harness_runs):
    run = harness_runs(CASE.name, CALENDAR)
    fake, out = run.fake, run.out
    requests = fake.llm_requests()
    # Only the Responses API, streamed, and nothing else reached the provider (no model listing,
    # telemetry or plugin sync: the image turns them off).
    assert [(r["method"], r["path"]) for r in fake.requests] == [("POST", "/v1/responses")] * 2
    assert all(r["body"]["stream"] is True for r in requests)
    first = requests[0]
    assert "exec_command" in [t.get("name") for t in first["body"]["tools"]]
    assert not [t for t in first["body"]["tools"] if t.get("type") == "web_search"]
    # The AGENTS.md rules (with the scenario's date) and the task reach the model.
    rules = "\n".join(texts(first, "user"))
    assert "current date and time is Tuesday 2024-10-01 09:00" in rules and "Dentist appointment" in rules
    assert json.loads(first["headers"]["x-codex-turn-metadata"])["analytics_enabled"] is False
    # The tool's output (the created event's id) went back to the model.
    outputs = [i for i in inputs(requests[1]) if i.get("type") == "function_call_output"]
    assert len(outputs) == 1 and "Process exited with code 0" in json.dumps(outputs[0])
    # The relay recorded each model call, the stream kept as it came; the trace page lists them.
    lines = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert len(lines) == len(fake.llm_requests()) == 2
    for seq, line in enumerate(lines):
        assert (line["seq"], line["type"], line["http_status"]) == (seq, "llm_call", 200)
        assert line["url"] == f"http://{HOST}:{fake.port}/v1/responses"
        assert line["request"]["stream"] is True and line["request"]["model"] == "fake-model"
        raw = line["raw_response"]  # the SSE stream as it came, event by event
        assert raw.startswith("event: response.created") and "event: response.completed" in raw
    assert "response.function_call_arguments.delta" in lines[0]["raw_response"]
    Site(run.root).refresh()
    page = (out / "trace.html").read_text()
    assert page.count('<details class="llm"') == 2, page[:2000]
    assert "LLM #0" in page and "LLM #1" in page
    assert '<span class="calls">→ exec_command</span>' in page  # call 0 parsed from the stream
    assert "in your calendar on 2024-10-03" in page  # call 1's streamed text, reassembled


def test_second_user_message_resumes_the_same_conversation(harness_runs):
    run = harness_runs(CASE.name, MULTI_TURN)
    requests = run.fake.llm_requests()
    # Turn 2 (`codex exec resume --last`) is the same conversation: its first request carries
    # turn 1's question, tool call and answer before the new user message.
    history = inputs(requests[2])
    assert texts(requests[2], "assistant") == [TURN1]
    assert [i["name"] for i in history if i.get("type") == "function_call"] == ["exec_command"]
    users = texts(requests[2], "user")
    assert "What is Maria Garcia's email address?" in users[-2] and "Offsite agenda" in users[-1]
    assert "What is Maria Garcia's email address?" in texts(requests[0], "user")[-1]
    assert "Offsite agenda" not in json.dumps(requests[1]["body"])
    assert len({r["headers"]["session-id"] for r in requests}) == 1
    sends = [c for c in tool_calls(run.out) if c["function"] == "send_message_to_user"]
    assert [c["args"]["content"] for c in sends] == [TURN1, TURN2]
