"""mini-swe-agent as the agent under test: its image, real containers, the fake provider on the host.

mini speaks OpenAI chat completions through litellm (one `bash` tool, not streamed). The scripted
"model" calls that tool with the app commands and submits its message to the user the way mini
ends a task (a command whose output starts with COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT), so ARE's
judge decides exactly as for any agent.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.viewer import build
from harness_support import (CALENDAR_ANSWER, HOST, add_event_command, agent_env, app_functions,
                             assert_cli_wrong_answer_fails, explain, run_cli, run_harness)

# The timeout covers a first build of the images in the fixture (about 12 min on a loaded 2-core machine).
pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(1800)]

KEY = "sk-test-mini"
EMAIL_ANSWER_1 = "Maria Garcia's email address is maria.garcia@example.com."
EMAIL_ANSWER_2 = "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."
EMAIL_TEXT = "Hi Maria, the offsite agenda will be ready by Thursday. Sam"


def bash(command: str, text: str = "") -> dict:
    """A reply calling mini's one tool."""
    return {"text": text, "tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def submit(message: str) -> dict:
    """mini's way to end a task: the rest of the output is the submission (the reply to the user)."""
    return bash(f"cat <<'GAIA2_EOF'\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n{message}\nGAIA2_EOF")


def add_event(start: str) -> dict:
    return bash(add_event_command(start), "I add the event.")


@pytest.fixture(scope="module")
def image(harness_image):
    return harness_image("mini-swe-agent")


def run(backend, image: str, fake, out: Path, scenario: str):
    return run_harness(backend, image, scenario, out, agent_env("openai-compat", fake, KEY, "/v1"), timeout=600)


def test_mini_solves_the_calendar_task_and_the_trace_shows_every_call(backend, image, fake, tmp_path):
    fake.set_script({"chat": [add_event("14:00:00"), submit(CALENDAR_ANSWER)]})
    result, out = run(backend, image, fake, tmp_path / "out", "demo_calendar_add_event")
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert (out / "agent_response.txt").read_text() == CALENDAR_ANSWER
    assert app_functions(out) == ["add_calendar_event", "send_message_to_user"]

    requests = fake.llm_requests()
    assert [r["path"] for r in requests] == ["/v1/chat/completions"] * 2
    assert {r["headers"]["authorization"] for r in requests} == {f"Bearer {KEY}"}
    first = requests[0]["body"]
    assert first["model"] == "fake-model" and [t["function"]["name"] for t in first["tools"]] == ["bash"]
    system, task = first["messages"][0]["content"], first["messages"][1]["content"]
    assert "Your final answer of a turn is your message to the user" in system  # the instructions file
    assert "`calendar`" in system  # the scenario's commands are listed
    assert "Please add a calendar event titled 'Dentist appointment'" in task
    # The second request carries the first command's output back as a tool result.
    assert requests[1]["body"]["messages"][-1]["role"] == "tool"

    # One trace line per model request, raw bodies kept; the trace page lists each call.
    lines = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert [line["seq"] for line in lines] == [0, 1]
    assert all(line["http_status"] == 200 for line in lines)
    assert lines[0]["url"] == f"http://{HOST}:{fake.port}/v1/chat/completions"
    assert lines[0]["request"]["messages"][1]["content"] == task
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in json.dumps(lines[1]["raw_response"])
    build(tmp_path / "out")
    page = (out / "trace.html").read_text()
    assert "2 LLM calls" in page
    assert page.count('<details class="llm"') == 2
    assert KEY not in page and all(KEY not in p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


def test_a_wrong_start_time_is_judged_a_failure_on_a_keyless_endpoint(backend, image, fake, tmp_path):
    """A local endpoint without a key (vLLM, Ollama): litellm insists on one, so it gets the run's
    placeholder, which the relay drops: the endpoint sees no credential."""
    fake.set_script({"chat": [add_event("15:00:00"), submit(CALENDAR_ANSWER)]})
    run = run_cli("mini-swe-agent", "demo_calendar_add_event", tmp_path / "out", fake, None, "/v1")
    assert_cli_wrong_answer_fails(run, "mini-swe-agent", None)
    assert app_functions(run.out) == ["add_calendar_event", "send_message_to_user"]
    agent_calls = [r for r in fake.llm_requests() if r["body"].get("model") == "fake-model"]  # not the judge's
    assert agent_calls and {r["headers"].get("authorization") for r in agent_calls} == {None}


def test_the_second_user_message_continues_the_same_conversation(backend, image, fake, tmp_path):
    send = ("emails send-email --recipients '[\"maria.garcia@example.com\"]' --subject 'Offsite agenda' "
            f"--content {shlex.quote(EMAIL_TEXT)}")
    fake.set_script({"chat": [
        bash("contacts search-contacts --query 'Maria Garcia'", "I look her up."),
        submit(EMAIL_ANSWER_1),
        bash(send, "I send the email."),
        submit(EMAIL_ANSWER_2),
    ]})
    result, out = run(backend, image, fake, tmp_path, "demo_multi_turn_email")
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert [t["success"] for t in json.loads((out / "daemon_status.json").read_text())["turns"]] == [True, True]

    requests = [r["body"]["messages"] for r in fake.llm_requests()]
    assert len(requests) == 4
    turn1, turn2 = requests[1], requests[2]
    # Turn 2 is the same conversation: turn 1's messages (system, task, both commands and their
    # results) come first, unchanged, then the user's new message verbatim.
    assert turn2[: len(turn1)] == turn1
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in json.dumps(turn2[len(turn1)])  # turn 1's submit call
    assert turn2[-1]["role"] == "user" and "Thanks. Send her an email" in turn2[-1]["content"]
    assert sum(m["role"] == "system" for m in turn2) == 1
    assert (out / "agent_response.txt").read_text() == EMAIL_ANSWER_2
