"""Hermes Agent (PyPI `hermes-agent`): what only this harness does, on the runs the common harness
tests share (tests/e2e/test_harnesses.py, tests/support/harness_cases.py).

The fake provider speaks OpenAI chat completions (streamed, as Hermes asks) and scripts Hermes's own
`terminal` tool. Hermes runs through its own CLI (`hermes chat -q … -Q`, `--continue` for the next
turn), unchanged, as the profile says.
"""

from __future__ import annotations

import json

import pytest

from gaia2_runner.output.read.trace_parsers import parse_line
from gaia2_runner.viewer import Site
from harness_cases import CALENDAR, CASES, MULTI_TURN, TURN1
from harness_support import CALENDAR_ANSWER as ANSWER
from harness_support import tool_calls

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(900)]

CASE = CASES["hermes"]
chat_requests = CASE.model_requests  # the chat completions, not Hermes's model-list probes


def test_hermes_streams_chat_with_its_terminal_tool_and_the_rules(harness_runs):
    requests = chat_requests(harness_runs(CASE.name, CALENDAR).fake)
    assert len(requests) == 2 and all(r["body"]["stream"] is True for r in requests)
    first = requests[0]["body"]
    assert {t["function"]["name"] for t in first["tools"]} == {"terminal", "process"}  # -t terminal only
    system = first["messages"][0]["content"]
    assert "## AGENTS.md" in system and "- `calendar`" in system  # gaia2-cli's rules, as Hermes loads them
    # The tool's output went back to the model: the app's answer to the command.
    tool_msg = requests[1]["body"]["messages"][-1]
    assert tool_msg["role"] == "tool" and '"exit_code": 0' in tool_msg["content"]
    assert "success" in tool_msg["content"]


def test_second_user_message_continues_the_same_conversation(harness_runs):
    run = harness_runs(CASE.name, MULTI_TURN)
    assert [t["turn_number"] for t in run.result.turns] == [1, 2]
    requests = chat_requests(run.fake)
    turn2 = requests[1]["body"]["messages"]
    # `hermes chat --continue` resumed turn 1's session: its question and answer come first.
    assert [m["role"] for m in turn2[:4]] == ["system", "user", "assistant", "user"]
    assert "What is Maria Garcia's email address?" in turn2[1]["content"]
    assert turn2[2]["content"] == TURN1
    assert turn2[-1]["role"] == "user" and "Offsite agenda" in turn2[-1]["content"]
    assert turn2[0] == requests[0]["body"]["messages"][0]  # the same system prompt
    sent = [c for c in tool_calls(run.out) if c["function"] == "send_email"]
    assert len(sent) == 1


def test_trace_has_every_model_call_and_the_viewer_lists_them(harness_runs):
    run = harness_runs(CASE.name, CALENDAR)
    fake, out = run.fake, run.out
    raw = (out / "trace.jsonl").read_text().splitlines()
    lines = [json.loads(line) for line in raw]
    # One line per request the harness sent through the relay, side requests (Hermes's model-list
    # probes for pricing) included, in the order the fake provider saw them.
    assert [line["url"].split(str(fake.port))[1] for line in lines] == [r["path"] for r in fake.requests]
    chats = [i for i, line in enumerate(lines) if line["url"].endswith("/chat/completions")]
    assert len(chats) == len(chat_requests(fake)) == 2
    assert [lines[i]["request"] for i in chats] == [r["body"] for r in chat_requests(fake)]
    assert all(
        lines[i]["raw_response"].rstrip().endswith("data: [DONE]") for i in chats
    )  # streams kept whole
    calls = [parse_line(line) for line in raw]
    assert [t.name for t in calls[chats[0]].response.tool_calls] == ["terminal"]
    assert calls[chats[1]].response.text == ANSWER
    Site(run.root).refresh()
    page = (out / "trace.html").read_text()
    assert "fake-model" in page and "Dentist appointment" in page
