"""Gemini CLI (npm @google/gemini-cli) as the agent under test, end to end.

The real `gemini` CLI runs in the gemini-cli image under the turn driver; the fake provider on the
host speaks the Gemini API's streaming generateContent (SSE) and scripts what "the model" does with
Gemini CLI's own `run_shell_command` tool: it runs the app commands, then answers in text (the
turn's final reply). ARE's judge decides. One image for the module; scenarios run one after another.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from harness_support import (CALENDAR_ANSWER, add_event_command, agent_env, app_functions,
                             assert_cli_wrong_answer_fails, explain, run_cli, run_harness)

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

MODEL = "gemini-2.5-flash"
KEY = "AIza-test-KEY-123"
STREAM_PATH = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
ANSWER = CALENDAR_ANSWER


def shell(command: str) -> dict:
    """A model reply calling Gemini CLI's run_shell_command tool."""
    return {"tool_calls": [{"name": "run_shell_command",
                            "arguments": {"command": command, "description": "Run an app command"}}]}


def add_event(start: str) -> dict:
    """gaia2-cli's command surface, as Meta's harness images offer it."""
    return shell(add_event_command(start))


@pytest.fixture(scope="module")
def image(harness_image):
    return harness_image("gemini-cli")


def run(backend, image: str, scenario: str, out: Path, fake, **extra: str) -> tuple:
    env = agent_env("gemini", fake, KEY, **{"GAIA2_AGENT_MODEL": MODEL, **extra})
    return run_harness(backend, image, scenario, out, env, timeout=300)


tool_calls = app_functions


def texts(contents: list[dict]) -> list[str]:
    return [p["text"] for c in contents for p in c["parts"] if "text" in p]


def test_gemini_cli_solves_the_calendar_scenario(backend, image, fake, tmp_path):
    fake.set_script({"gemini": [add_event("14:00:00"), {"text": ANSWER}]})
    result, out = run(backend, image, "demo_calendar_add_event.json", tmp_path, fake)
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert tool_calls(out) == ["add_calendar_event", "send_message_to_user"]
    assert (out / "agent_response.txt").read_text() == ANSWER
    # Only model calls reached the provider: streaming generateContent of the chosen model, the key
    # in its header, nothing else (no router/classifier call, telemetry, update check or web tool).
    requests = fake.requests
    assert [(r["method"], r["path"]) for r in requests] == [("POST", STREAM_PATH)] * 2
    assert {r["headers"]["x-goog-api-key"] for r in requests} == {KEY}
    tools = {f["name"] for f in requests[0]["body"]["tools"][0]["functionDeclarations"]}
    assert "run_shell_command" in tools and not tools & {"web_fetch", "google_web_search"}
    first = json.dumps(requests[0]["body"])
    # GEMINI.md (the gaia2-cli rules) is in the context, and the agent's clock is the scenario's.
    assert "Context from: /gaia2/agent/GEMINI.md" in first and "`calendar`" in first, first[:2000]
    assert "Today's date is Tuesday, October 1, 2024" in first, first[:2000]
    # The shell tool really ran the command as the agent: its output went back to the model.
    response = requests[1]["body"]["contents"][-1]["parts"][0]["functionResponse"]
    assert response["name"] == "run_shell_command" and "Exit Code" not in json.dumps(response), response
    for path in out.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


def test_wrong_start_time_is_judged_a_failure(backend, image, fake, tmp_path):
    fake.set_script({"gemini": [add_event("15:00:00"), {"text": ANSWER}]})
    run = run_cli("gemini-cli", "demo_calendar_add_event", tmp_path / "out", fake, KEY, model=MODEL)
    assert_cli_wrong_answer_fails(run, "gemini-cli", KEY)
    assert app_functions(run.out) == ["add_calendar_event", "send_message_to_user"]


def test_second_user_message_is_a_new_turn_of_the_same_conversation(backend, image, fake, tmp_path):
    turn1 = "Maria Garcia's email address is maria.garcia@example.com."
    send = shell("emails send-email --recipients " + shlex.quote('["maria.garcia@example.com"]')
                 + " --subject 'Offsite agenda' --content "
                 + shlex.quote("Hi Maria, the offsite agenda will be ready by Thursday. Sam"))
    turn2 = "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."
    fake.set_script({"gemini": [{"text": turn1}, send, {"text": turn2}]})
    result, out = run(backend, image, "demo_multi_turn_email.json", tmp_path, fake)
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert tool_calls(out) == ["send_message_to_user", "send_email", "send_message_to_user"]
    requests = fake.requests
    assert len(requests) == 3
    # Turn 2 resumed turn 1's session (--resume=latest): its first request carries turn 1's
    # question and answer before the new user message.
    history = requests[1]["body"]["contents"]
    said = texts(history)
    assert "What is Maria Garcia's email address?" in "\n".join(said)
    assert history[-2]["role"] == "model" and texts(history[-2:-1]) == [turn1]
    assert history[-1]["role"] == "user" and "Offsite agenda" in texts(history[-1:])[0]
    # One conversation: turn 2's last request extends turn 2's first one.
    assert requests[2]["body"]["contents"][: len(history)] == history


def test_trace_and_viewer_show_every_model_call(backend, image, fake, tmp_path):
    from gaia2_runner.viewer import build
    from gaia2_runner.output.read.trace_parsers import read_trace

    fake.set_script({"gemini": [add_event("14:00:00"), {"text": ANSWER}]})
    result, out = run(backend, image, "demo_calendar_add_event.json", tmp_path, fake)
    assert result.success is True, explain(result, out)
    lines = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines() if line.strip()]
    assert len(lines) == len(fake.requests) == 2
    calls = read_trace(out / "trace.jsonl")
    assert [c.response.tool_calls[0].name if c.response.tool_calls else c.response.text for c in calls] == [
        "run_shell_command", ANSWER]
    build(tmp_path)
    page = (out / "trace.html").read_text()
    assert "run_shell_command" in page and "calendar add-event" in page
