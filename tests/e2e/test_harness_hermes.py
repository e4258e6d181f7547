"""Hermes Agent (PyPI `hermes-agent`) as the agent under test, end to end in its own image.

The fake provider speaks OpenAI chat completions (streamed, as Hermes asks) and scripts Hermes's own
`terminal` tool running the app commands; ARE judges what happened. Hermes runs through its own CLI
(`hermes chat -q … -Q`, `--continue` for the next turn), unchanged, as the profile says.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from harness_support import (CALENDAR_ANSWER as ANSWER, add_event_command, agent_env, app_functions,
                             assert_cli_wrong_answer_fails, explain, run_cli, run_harness, tool_calls)

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(900)]

SECRET = "sk-hermes-SECRET-123"
TURN1 = "Maria Garcia's email address is maria.garcia@example.com."
TURN2 = "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."
BODY = "Hi Maria, the offsite agenda will be ready by Thursday. Sam"


def shell(command: str) -> dict:
    """A scripted model reply: one call of Hermes's `terminal` tool."""
    return {"tool_calls": [{"name": "terminal", "arguments": {"command": command}}]}


@pytest.fixture(scope="module")
def hermes_image(harness_image):
    return harness_image("hermes")


def run(backend, image: str, fake, scenario: str, out: Path):
    return run_harness(backend, image, scenario, out, agent_env("openai-compat", fake, SECRET, "/v1"), timeout=600)


def chat_requests(fake) -> list[dict]:
    return [r for r in fake.llm_requests() if r["route"] == "chat"]


def test_hermes_solves_the_scenario_with_its_shell_tool(backend, hermes_image, fake, tmp_path):
    fake.set_script({"chat": [shell(add_event_command("14:00:00")), {"text": ANSWER}]})
    result, out = run(backend, hermes_image, fake, "demo_calendar_add_event", tmp_path)
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert app_functions(out) == ["add_calendar_event", "send_message_to_user"]
    assert (out / "agent_response.txt").read_text() == ANSWER  # stdout of `hermes chat -Q` is the reply
    requests = chat_requests(fake)
    assert len(requests) == 2 and all(r["body"]["stream"] is True for r in requests)
    first = requests[0]["body"]
    assert {t["function"]["name"] for t in first["tools"]} == {"terminal", "process"}  # -t terminal only
    system = first["messages"][0]["content"]
    assert "## AGENTS.md" in system and "- `calendar`" in system  # gaia2-cli's rules, as Hermes loads them
    # The tool's output went back to the model: the app's answer to the command.
    tool_msg = requests[1]["body"]["messages"][-1]
    assert tool_msg["role"] == "tool" and '"exit_code": 0' in tool_msg["content"]
    assert "success" in tool_msg["content"]
    # Only the relay was ever asked for anything, with the key in its header, never into the output.
    assert {r["headers"].get("authorization") for r in requests} == {f"Bearer {SECRET}"}
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path


def test_wrong_time_is_judged_a_failure(backend, hermes_image, fake, tmp_path):
    fake.set_script({"chat": [shell(add_event_command("15:00:00", "16:00:00")), {"text": ANSWER}]})
    run = run_cli("hermes", "demo_calendar_add_event", tmp_path / "out", fake, SECRET, "/v1")
    assert_cli_wrong_answer_fails(run, "hermes", SECRET)
    assert app_functions(run.out)[0] == "add_calendar_event"


def test_second_user_message_continues_the_same_conversation(backend, hermes_image, fake, tmp_path):
    send = shell("emails send-email --recipients '[\"maria.garcia@example.com\"]' "
                 f"--subject 'Offsite agenda' --content {shlex.quote(BODY)}")
    fake.set_script({"chat": [{"text": TURN1}, send, {"text": TURN2}]})
    result, out = run(backend, hermes_image, fake, "demo_multi_turn_email", tmp_path)
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert [t["turn_number"] for t in result.turns] == [1, 2]
    requests = chat_requests(fake)
    assert len(requests) == 3
    turn2 = requests[1]["body"]["messages"]
    # `hermes chat --continue` resumed turn 1's session: its question and answer come first.
    assert [m["role"] for m in turn2[:4]] == ["system", "user", "assistant", "user"]
    assert "What is Maria Garcia's email address?" in turn2[1]["content"]
    assert turn2[2]["content"] == TURN1
    assert turn2[-1]["role"] == "user" and "Offsite agenda" in turn2[-1]["content"]
    assert turn2[0] == requests[0]["body"]["messages"][0]  # the same system prompt
    sent = [c for c in tool_calls(out) if c["function"] == "send_email"]
    assert len(sent) == 1


def test_trace_has_every_model_call_and_the_viewer_lists_them(backend, hermes_image, fake, tmp_path):
    from gaia2_runner.viewer import Site
    from gaia2_runner.output.read.trace_parsers import parse_line

    fake.set_script({"chat": [shell(add_event_command("14:00:00")), {"text": ANSWER}]})
    result, out = run(backend, hermes_image, fake, "demo_calendar_add_event", tmp_path)
    assert result.success is True, explain(result, out)
    raw = (out / "trace.jsonl").read_text().splitlines()
    lines = [json.loads(line) for line in raw]
    # One line per request the harness sent through the relay, side requests (Hermes's model-list
    # probes for pricing) included, in the order the fake provider saw them.
    assert [line["url"].split(str(fake.port))[1] for line in lines] == [r["path"] for r in fake.requests]
    chats = [i for i, line in enumerate(lines) if line["url"].endswith("/chat/completions")]
    assert len(chats) == len(chat_requests(fake)) == 2
    assert [lines[i]["request"] for i in chats] == [r["body"] for r in chat_requests(fake)]
    assert all(lines[i]["raw_response"].rstrip().endswith("data: [DONE]") for i in chats)  # streams kept whole
    calls = [parse_line(line) for line in raw]
    assert [t.name for t in calls[chats[0]].response.tool_calls] == ["terminal"]
    assert calls[chats[1]].response.text == ANSWER
    Site(tmp_path).refresh()
    page = (out / "trace.html").read_text()
    assert "fake-model" in page and "Dentist appointment" in page
