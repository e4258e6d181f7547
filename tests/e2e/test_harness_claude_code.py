"""Claude Code (npm @anthropic-ai/claude-code): what only this harness does, on the runs the common
harness tests share (tests/e2e/test_harnesses.py, tests/support/harness_cases.py).

The real `claude` binary runs in the claude-code image under the turn driver; the fake provider on
the host speaks Anthropic Messages streaming and scripts Claude Code's own `Bash` tool.
"""

from __future__ import annotations

import json

import pytest

from gaia2_runner.output.read.trace_parsers import read_trace
from gaia2_runner.viewer import build
from harness_cases import CALENDAR, CASES, MULTI_TURN, TURN1
from harness_cases import CLAUDE_MODEL as MODEL
from harness_support import CALENDAR_ANSWER as ANSWER
from harness_support import HOST, app_functions, explain, run_harness

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

CASE = CASES["claude-code"]
KEY = CASE.key


@pytest.fixture
def solved(harness_runs):
    return harness_runs(CASE.name, CALENDAR)


def test_only_streamed_messages_calls_reach_the_provider_with_the_agents_context(solved):
    requests = solved.requests
    # Only model calls reached the provider: streaming Messages, nothing else (no telemetry, title
    # or quota requests, no HEAD probes).
    assert [(r["method"], r["path"]) for r in requests] == [("POST", "/v1/messages?beta=true")] * 2
    assert all(r["body"]["stream"] is True and r["body"]["model"] == MODEL for r in requests)
    first = json.dumps(requests[0]["body"])
    # CLAUDE.md (the gaia2-cli rules, naming the Bash tool and the calendar command) is in the
    # context, and the agent's clock is the scenario's.
    assert "personal assistant" in first and "Today's date is 2024-10-01" in first
    assert "`calendar`" in first and "Use your `Bash` tool" in first
    # WebFetch / WebSearch are switched off by the image's managed settings (otherwise offered as
    # deferred tools): the agent acts through the apps and reaches nothing but the relay.
    assert "WebFetch" not in first and "WebSearch" not in first
    # The Bash tool really ran the command: its output (the new event's id) went back to the model.
    tool_result = requests[1]["body"]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and not tool_result.get("is_error"), tool_result


def test_trace_has_every_model_call_and_the_trace_page_lists_them(solved):
    out, requests = solved.out, solved.requests
    lines = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert len(lines) == len(requests) == 2
    assert all(line["raw_response"].startswith("event: message_start") for line in lines)  # the raw streams
    assert [line["request"]["messages"] for line in lines] == [r["body"]["messages"] for r in requests]
    calls = read_trace(out / "trace.jsonl")
    assert [tc.name for tc in calls[0].response.tool_calls] == ["Bash"]
    assert calls[1].response.text == ANSWER
    build(out.parent)
    page = (out / "trace.html").read_text()
    assert "2 LLM calls" in page and "Bash" in page


def test_second_user_message_resumes_the_same_session(harness_runs):
    run = harness_runs(CASE.name, MULTI_TURN)
    assert app_functions(run.out) == ["send_message_to_user", "send_email", "send_message_to_user"]
    requests = run.requests
    # Turn 2 resumed turn 1's session: its first request carries turn 1's question and answer.
    history = requests[1]["body"]["messages"]
    assert "What is Maria Garcia's email address?" in json.dumps(history[0])
    assert history[1]["role"] == "assistant" and history[1]["content"][-1]["text"] == TURN1
    assert "Offsite agenda" in json.dumps(history[-1])
    assert len({r["headers"]["x-claude-code-session-id"] for r in requests}) == 1


def test_provider_down_is_an_infrastructure_error_not_a_reply(sandbox, harness_image, fake, tmp_path):
    """Claude Code prints "API Error: 503 …" as its result and exits 1: that never reaches the user
    as an answer; the relay saw the provider fail, so the run is an infrastructure error."""
    down = {"status": 503, "message": "overloaded", "repeat": 10}
    fake.set_script({"anthropic": [down], "preflight": [down]})  # down for the runner's own probe too
    env = {**CASE.run_env(fake), "CLAUDE_CODE_MAX_RETRIES": "1"}
    result, out = run_harness(
        sandbox, harness_image(CASE.name), CALENDAR, tmp_path, env, timeout=CASE.timeout
    )
    assert (result.status, result.success) == ("error", None), explain(result, out)
    assert f"provider error: HTTP 503 from http://{HOST}:{fake.port}/v1/messages" in result.error
    assert "send_message_to_user" not in app_functions(out)
    assert len(fake.requests) == 2  # the first try and Claude Code's one retry
