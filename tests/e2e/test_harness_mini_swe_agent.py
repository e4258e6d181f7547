"""mini-swe-agent: what only this harness does, on the runs the common harness tests share
(tests/e2e/test_harnesses.py, tests/support/harness_cases.py).

mini speaks OpenAI chat completions through litellm (one `bash` tool, not streamed). The scripted
"model" calls that tool with the app commands and submits its message to the user the way mini
ends a task (a command whose output starts with COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT).
"""

from __future__ import annotations

import json

import pytest

from gaia2_runner.viewer import build
from harness_cases import CALENDAR, CASES, MULTI_TURN, TURN2
from harness_support import HOST

# The timeout covers a first build of the images in the fixture (about 12 min on a loaded 2-core machine).
pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(1800)]

CASE = CASES["mini-swe-agent"]
KEY = CASE.key


def test_mini_calls_its_one_tool_with_its_instructions_and_the_trace_shows_every_call(harness_runs):
    run = harness_runs(CASE.name, CALENDAR)
    fake, out = run.fake, run.out
    requests = fake.llm_requests()
    assert [r["path"] for r in requests] == ["/v1/chat/completions"] * 2
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
    build(run.root)
    page = (out / "trace.html").read_text()
    assert "2 LLM calls" in page
    assert page.count('<details class="llm"') == 2
    assert KEY not in page and all(
        KEY not in p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()
    )


def test_the_second_user_message_continues_the_same_conversation(harness_runs):
    run = harness_runs(CASE.name, MULTI_TURN)
    out = run.out
    assert [t["success"] for t in json.loads((out / "daemon_status.json").read_text())["turns"]] == [
        True,
        True,
    ]
    requests = [r["body"]["messages"] for r in run.fake.llm_requests()]
    turn1, turn2 = requests[1], requests[2]
    # Turn 2 is the same conversation: turn 1's messages (system, task, both commands and their
    # results) come first, unchanged, then the user's new message verbatim.
    assert turn2[: len(turn1)] == turn1
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in json.dumps(turn2[len(turn1)])  # turn 1's submit call
    assert turn2[-1]["role"] == "user" and "Thanks. Send her an email" in turn2[-1]["content"]
    assert sum(m["role"] == "system" for m in turn2) == 1
    assert (out / "agent_response.txt").read_text() == TURN2
