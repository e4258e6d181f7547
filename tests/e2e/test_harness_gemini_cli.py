"""Gemini CLI (npm @google/gemini-cli): what only this harness does, on the runs the common harness
tests share (tests/e2e/test_harnesses.py, tests/support/harness_cases.py).

The real `gemini` CLI runs in the gemini-cli image under the turn driver; the fake provider on the
host speaks the Gemini API's streaming generateContent (SSE) and scripts Gemini CLI's own
`run_shell_command` tool.
"""

from __future__ import annotations

import json

import pytest

from gaia2_runner.output.read.trace_parsers import read_trace
from gaia2_runner.viewer import build
from harness_cases import CALENDAR, CASES, MULTI_TURN, TURN1
from harness_cases import GEMINI_MODEL as MODEL
from harness_support import CALENDAR_ANSWER as ANSWER
from harness_support import app_functions

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

CASE = CASES["gemini-cli"]
STREAM_PATH = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"


def texts(contents: list[dict]) -> list[str]:
    return [p["text"] for c in contents for p in c["parts"] if "text" in p]


def test_only_streamed_generate_content_reaches_the_provider_with_the_agents_context(harness_runs):
    requests = harness_runs(CASE.name, CALENDAR).requests
    # Only model calls reached the provider: streaming generateContent of the chosen model, nothing
    # else (no router/classifier call, telemetry, update check or web tool).
    assert [(r["method"], r["path"]) for r in requests] == [("POST", STREAM_PATH)] * 2
    tools = {f["name"] for f in requests[0]["body"]["tools"][0]["functionDeclarations"]}
    assert "run_shell_command" in tools and not tools & {"web_fetch", "google_web_search"}
    first = json.dumps(requests[0]["body"])
    # GEMINI.md (the gaia2-cli rules) is in the context, and the agent's clock is the scenario's.
    assert "Context from: /gaia2/agent/GEMINI.md" in first and "`calendar`" in first, first[:2000]
    assert "Today's date is Tuesday, October 1, 2024" in first, first[:2000]
    # The shell tool really ran the command as the agent: its output went back to the model.
    response = requests[1]["body"]["contents"][-1]["parts"][0]["functionResponse"]
    assert response["name"] == "run_shell_command" and "Exit Code" not in json.dumps(response), response


def test_second_user_message_resumes_the_same_session(harness_runs):
    run = harness_runs(CASE.name, MULTI_TURN)
    assert app_functions(run.out) == ["send_message_to_user", "send_email", "send_message_to_user"]
    requests = run.requests
    # Turn 2 resumed turn 1's session (--resume=latest): its first request carries turn 1's
    # question and answer before the new user message.
    history = requests[1]["body"]["contents"]
    said = texts(history)
    assert "What is Maria Garcia's email address?" in "\n".join(said)
    assert history[-2]["role"] == "model" and texts(history[-2:-1]) == [TURN1]
    assert history[-1]["role"] == "user" and "Offsite agenda" in texts(history[-1:])[0]
    # One conversation: turn 2's last request extends turn 2's first one.
    assert requests[2]["body"]["contents"][: len(history)] == history


def test_trace_and_viewer_show_every_model_call(harness_runs):
    run = harness_runs(CASE.name, CALENDAR)
    out = run.out
    lines = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines() if line.strip()]
    assert len(lines) == len(run.requests) == 2
    calls = read_trace(out / "trace.jsonl")
    assert [c.response.tool_calls[0].name if c.response.tool_calls else c.response.text for c in calls] == [
        "run_shell_command",
        ANSWER,
    ]
    build(run.root)
    page = (out / "trace.html").read_text()
    assert "run_shell_command" in page and "calendar add-event" in page
