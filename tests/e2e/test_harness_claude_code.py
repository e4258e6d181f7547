"""Claude Code (npm @anthropic-ai/claude-code) as the agent under test, end to end.

The real `claude` binary runs in the claude-code image under the turn driver; the fake provider on
the host speaks Anthropic Messages streaming and scripts what "the model" does with Claude Code's
own `Bash` tool: it runs the app commands, then answers in text (the turn's final reply). ARE's
judge decides. One image for the module; scenarios run one after another.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from harness_support import (CALENDAR_ANSWER, HOST, add_event_command, agent_env, app_functions,
                             assert_cli_wrong_answer_fails, explain, run_cli, run_harness)

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

MODEL = "claude-sonnet-4-5"
KEY = "sk-ant-test-KEY-123"
ANSWER = CALENDAR_ANSWER


def bash(command: str) -> dict:
    """A model reply calling Claude Code's Bash tool."""
    return {"tool_calls": [{"name": "Bash", "arguments": {"command": command, "description": "Run an app command"}}]}


def add_event(start: str) -> dict:
    """gaia2-cli's command surface, as Meta's harness images offer it."""
    return bash(add_event_command(start))


@pytest.fixture(scope="module")
def image(harness_image):
    return harness_image("claude-code")


def run(backend, image: str, scenario: str, out: Path, fake, **extra: str) -> tuple:
    env = agent_env("anthropic", fake, KEY, **{"GAIA2_AGENT_MODEL": MODEL, **extra})
    return run_harness(backend, image, scenario, out, env, timeout=240)


tool_calls = app_functions


@pytest.fixture(scope="module")
def solved(backend, image, tmp_path_factory):
    """The calendar scenario solved once (Bash runs the app command, then a text answer); the
    result, its output directory and the fake's requests, for the tests below."""
    from fake_llm.server import FakeLLM

    tmp = tmp_path_factory.mktemp("solved")
    fake = FakeLLM({"anthropic": [add_event("14:00:00"), {"text": ANSWER}]}, tmp / "llm_requests.jsonl")
    fake.start()
    try:
        result, out = run(backend, image, "demo_calendar_add_event.json", tmp / "out", fake)
    finally:
        fake.stop()
    return result, out, fake.requests


def test_claude_code_solves_the_calendar_scenario(solved):
    result, out, requests = solved
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert tool_calls(out) == ["add_calendar_event", "send_message_to_user"]
    assert (out / "agent_response.txt").read_text() == ANSWER
    # Only model calls reached the provider: streaming Messages, the key in its header, nothing else
    # (no telemetry, title or quota requests, no HEAD probes).
    assert [(r["method"], r["path"]) for r in requests] == [("POST", "/v1/messages?beta=true")] * 2
    assert all(r["body"]["stream"] is True and r["body"]["model"] == MODEL for r in requests)
    assert {r["headers"]["x-api-key"] for r in requests} == {KEY}
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
    for path in out.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


def test_trace_has_every_model_call_and_the_trace_page_lists_them(solved):
    from gaia2_runner.viewer import build
    from gaia2_runner.output.read.trace_parsers import read_trace

    result, out, requests = solved
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


def test_wrong_start_time_is_judged_a_failure(backend, image, fake, tmp_path):
    fake.set_script({"anthropic": [add_event("15:00:00"), {"text": ANSWER}]})
    run = run_cli("claude-code", "demo_calendar_add_event", tmp_path / "out", fake, KEY, model=MODEL)
    assert_cli_wrong_answer_fails(run, "claude-code", KEY)
    assert app_functions(run.out) == ["add_calendar_event", "send_message_to_user"]


def test_second_user_message_is_a_new_turn_of_the_same_conversation(backend, image, fake, tmp_path):
    turn1 = "Maria Garcia's email address is maria.garcia@example.com."
    send = bash("emails send-email --recipients " + shlex.quote('["maria.garcia@example.com"]')
                + " --subject 'Offsite agenda' --content "
                + shlex.quote("Hi Maria, the offsite agenda will be ready by Thursday. Sam"))
    turn2 = "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."
    fake.set_script({"anthropic": [{"text": turn1}, send, {"text": turn2}]})
    result, out = run(backend, image, "demo_multi_turn_email.json", tmp_path, fake)
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert tool_calls(out) == ["send_message_to_user", "send_email", "send_message_to_user"]
    requests = fake.requests
    assert len(requests) == 3
    # Turn 2 resumed turn 1's session: its first request carries turn 1's question and answer.
    history = requests[1]["body"]["messages"]
    assert "What is Maria Garcia's email address?" in json.dumps(history[0])
    assert history[1]["role"] == "assistant" and history[1]["content"][-1]["text"] == turn1
    assert "Offsite agenda" in json.dumps(history[-1])
    assert len({r["headers"]["x-claude-code-session-id"] for r in requests}) == 1


def test_provider_down_is_an_infrastructure_error_not_a_reply(backend, image, fake, tmp_path):
    """Claude Code prints "API Error: 503 …" as its result and exits 1: that never reaches the user
    as an answer; the relay saw the provider fail, so the run is an infrastructure error."""
    fake.set_script({"anthropic": [{"status": 503, "message": "overloaded", "repeat": 10}]})
    result, out = run(backend, image, "demo_calendar_add_event.json", tmp_path, fake, CLAUDE_CODE_MAX_RETRIES="1")
    assert (result.status, result.success) == ("error", None), explain(result, out)
    assert f"provider error: HTTP 503 from http://{HOST}:{fake.port}/v1/messages" in result.error
    assert "send_message_to_user" not in tool_calls(out)
    assert len(fake.requests) == 2  # the first try and Claude Code's one retry
