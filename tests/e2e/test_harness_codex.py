"""Codex CLI (npm @openai/codex) as the agent under test, end to end in its own image.

The fake provider speaks the OpenAI Responses API as a stream (what Codex sends: POST
<base>/responses with "stream": true) and scripts Codex's own shell tool, `exec_command`, running
the scenario's gaia2-cli commands (`calendar add-event --title …`); Codex's final message
(--output-last-message) is the reply to the user, and ARE judges the run. The container reaches
the fake through the daemon's model relay, which records every call into trace.jsonl.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.viewer import Site
from harness_support import (CALENDAR_ANSWER as ANSWER, HOST, agent_env, app_functions,
                             assert_cli_wrong_answer_fails, explain, run_cli, run_harness, tool_calls)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

SECRET = "sk-test-CODEX-SECRET-7731"
EVENT = {"title": "Dentist appointment", "start_datetime": "2024-10-03 14:00:00",
         "end_datetime": "2024-10-03 15:00:00", "location": "Smile Dental, 12 Rue Oberkampf, Paris"}
MARIA = "maria.garcia@example.com"
EMAIL_TEXT = "Hi Maria, the offsite agenda will be ready by Thursday. Sam"


def shell(command: str) -> dict:
    """A model reply calling Codex's shell tool."""
    return {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": command}}]}


def add_event(**changes: str) -> dict:
    args = {**EVENT, **changes}
    flags = " ".join(f"--{k.replace('_', '-')} {shlex.quote(v)}" for k, v in args.items())
    return shell(f"calendar add-event {flags}")


@pytest.fixture(scope="module")
def codex_image(harness_image) -> str:
    return harness_image("codex")


def run(backend, image: str, scenario: str, out: Path, fake, key: str = SECRET):
    return run_harness(backend, image, scenario, out, agent_env("openai", fake, key, "/v1"), runtime="harness")


def inputs(request: dict) -> list[dict]:
    return request["body"]["input"]


def texts(request: dict, role: str) -> list[str]:
    return [part.get("text", "") for item in inputs(request) if item.get("type") == "message" and item.get("role") == role
            for part in item.get("content") or []]


def test_codex_solves_the_calendar_scenario_and_the_trace_shows_every_call(backend, codex_image, fake, tmp_path):
    fake.set_script({"responses": [add_event(), {"text": ANSWER}]})
    result, out = run(backend, codex_image, "demo_calendar_add_event.json", tmp_path, fake)
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert app_functions(out) == ["add_calendar_event", "send_message_to_user"]
    assert (out / "agent_response.txt").read_text() == ANSWER
    requests = fake.llm_requests()
    # Only the Responses API, streamed, and nothing else reached the provider (no model listing,
    # telemetry or plugin sync: the image turns them off).
    assert [(r["method"], r["path"]) for r in fake.requests] == [("POST", "/v1/responses")] * 2
    assert all(r["body"]["stream"] is True for r in requests)
    assert {r["headers"]["authorization"] for r in requests} == {f"Bearer {SECRET}"}
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
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
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
    Site(tmp_path).refresh()
    page = (out / "trace.html").read_text()
    assert page.count('<details class="llm"') == 2, page[:2000]
    assert "LLM #0" in page and "LLM #1" in page
    assert '<span class="calls">→ exec_command</span>' in page  # call 0 parsed from the stream
    assert "in your calendar on 2024-10-03" in page  # call 1's streamed text, reassembled


def test_wrong_start_time_is_judged_a_failure(backend, codex_image, fake, tmp_path):
    fake.set_script({"responses": [add_event(start_datetime="2024-10-03 15:00:00"), {"text": ANSWER}]})
    run = run_cli("codex", "demo_calendar_add_event", tmp_path / "out", fake, SECRET, "/v1")
    assert_cli_wrong_answer_fails(run, "codex", SECRET)
    assert app_functions(run.out) == ["add_calendar_event", "send_message_to_user"]


def test_second_user_message_resumes_the_same_conversation(backend, codex_image, fake, tmp_path):
    turn1 = "Maria Garcia's email address is maria.garcia@example.com."
    turn2 = "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."
    send = ("emails send-email --recipients " + shlex.quote(json.dumps([MARIA]))
            + " --subject 'Offsite agenda' --content " + shlex.quote(EMAIL_TEXT))
    fake.set_script({"responses": [shell("contacts search-contacts --query 'Maria Garcia'"), {"text": turn1},
                                   shell(send), {"text": turn2}]})
    result, out = run(backend, codex_image, "demo_multi_turn_email.json", tmp_path, fake)
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    requests = fake.llm_requests()
    assert len(requests) == 4
    # Turn 2 (`codex exec resume --last`) is the same conversation: its first request carries
    # turn 1's question, tool call and answer before the new user message.
    history = inputs(requests[2])
    assert texts(requests[2], "assistant") == [turn1]
    assert [i["name"] for i in history if i.get("type") == "function_call"] == ["exec_command"]
    users = texts(requests[2], "user")
    assert "What is Maria Garcia's email address?" in users[-2] and "Offsite agenda" in users[-1]
    assert "What is Maria Garcia's email address?" in texts(requests[0], "user")[-1]
    assert "Offsite agenda" not in json.dumps(requests[1]["body"])
    assert len({r["headers"]["session-id"] for r in requests}) == 1
    sends = [c for c in tool_calls(out) if c["function"] == "send_message_to_user"]
    assert [c["args"]["content"] for c in sends] == [turn1, turn2]
