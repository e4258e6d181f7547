"""ARE's default agent as a runtime (`--agent are-default`), end to end against the scripted provider.

The fake provider answers in ARE's own action format (`Thought: … Action: {json}<end_action>`), as a
model following ARE's system prompt does; ARE's parser, executor, termination and LiteLLM engine
run unmodified in the container, against the daemon's tool API and through the model relay.
"""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path

import pytest

from gaia2_runner.config.defaults import AGENT_IMAGE
from harness_support import (
    CALENDAR_ANSWER,
    HOST,
    agent_log_tail,
    app_functions,
    run_cli,
    run_harness,
    tool_calls,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

EVENT = {
    "title": "Dentist appointment",
    "start_datetime": "2024-10-03 14:00:00",
    "end_datetime": "2024-10-03 15:00:00",
    "location": "Smile Dental, 12 Rue Oberkampf, Paris",
}
MARIA = "maria.garcia@example.com"
EMAIL_TEXT = "Hi Maria, the offsite agenda will be ready by Thursday. Sam"
TURN1 = "Maria Garcia's email address is maria.garcia@example.com."
TURN2 = "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."
RUNTIME = "are-default"


def blob(tool: str, arguments: dict | str, thought: str = "I act.") -> dict:
    """One fake-model reply in ARE's JSON action format."""
    action = json.dumps({"action": tool, "action_input": arguments})
    return {"text": f"Thought: {thought}\nAction:\n{action}<end_action>"}


ADD = blob("CalendarApp__add_calendar_event", EVENT)
SEND = blob("AgentUserInterface__send_message_to_user", {"content": CALENDAR_ANSWER})


def agent_env(fake, **extra: str) -> dict[str, str]:
    return {
        "GAIA2_AGENT_PROVIDER": "openai-compat",
        "GAIA2_AGENT_MODEL": "fake-model",
        "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}/v1",
        **extra,
    }


def run(sandbox, fake, scenario: str, out: Path, **extra: str):
    return run_harness(sandbox, AGENT_IMAGE, scenario, out, agent_env(fake, **extra), runtime=RUNTIME)


def prompt_text(request: dict) -> str:
    return "\n".join(str(m.get("content")) for m in request["body"]["messages"])


def trace(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines() if line.strip()]


def test_cli_run_solves_the_scenario_with_ares_prompt_and_parser(sandbox, images, fake, tmp_path):
    fake.set_script({"chat": [ADD, SEND]})
    run_ = run_cli(RUNTIME, "demo_calendar_add_event", tmp_path / "out", fake, None, "/v1")
    assert run_.proc.returncode == 0 and run_.result.get("success") is True, run_.explain()
    assert run_.result["status"] == "completed" and run_.result["runtime"] == RUNTIME, run_.result
    assert run_.run_config["harness"]["name"] == RUNTIME, run_.run_config
    assert app_functions(run_.out) == ["add_calendar_event", "send_message_to_user"]
    assert (run_.out / "agent_response.txt").read_text() == CALENDAR_ANSWER
    requests = fake.llm_requests()
    assert len(requests) == 2 and {r["path"] for r in requests} == {"/v1/chat/completions"}
    assert {r["body"]["model"] for r in requests} == {"fake-model"}  # LiteLLM's openai/ prefix is stripped
    first = prompt_text(requests[0])
    # ARE's system prompt, its tool list (AppToolAdapter's descriptions) and its notification policy.
    assert "<end_action>" in first and "Acts on app CalendarApp:" in first, first[:3000]
    assert "Today's date in 'YYYY-MM-DD HH' format is 2024-10-01 09" in first
    assert "CalendarApp__add_calendar_event" in first and "AgentUserInterface__get_all_messages" not in first
    assert (
        "[TASK]: \nReceived at: 2024-10-01 09:00:00\nSender: User\nMessage: Please add a calendar event"
        in first
    )
    # The observation is str() of what the app returned (the new event's id), as ARE's agent sees it.
    second = prompt_text(requests[1])
    assert "[OUTPUT OF STEP 1] Observation:" in second, second[-2000:]
    event_id = tool_calls(run_.out)[0]["result"]
    assert isinstance(event_id, str) and f"***\n{event_id}\n***" in second
    # Every model call is in trace.jsonl through the relay, and on the trace page.
    lines = trace(run_.out)
    assert [line["http_status"] for line in lines] == [200, 200], lines
    assert lines[0]["url"] == f"http://{HOST}:{fake.port}/v1/chat/completions"
    page = (run_.out / "trace.html").read_text()
    assert "CalendarApp__add_calendar_event" in page and "Observation:" in page


def test_two_turns_continue_the_same_conversation(sandbox, images, fake, tmp_path):
    send_email = blob(
        "EmailClientV2__send_email",
        {"recipients": [MARIA], "subject": "Offsite agenda", "content": EMAIL_TEXT},
    )
    fake.set_script(
        {
            "chat": [
                blob("ContactsApp__search_contacts", {"query": "Maria Garcia"}),
                blob("AgentUserInterface__send_message_to_user", {"content": TURN1}),
                send_email,
                blob("AgentUserInterface__send_message_to_user", {"content": TURN2}),
            ]
        }
    )
    result, out = run(sandbox, fake, "demo_multi_turn_email", tmp_path)
    assert (result.status, result.success) == ("completed", True), (result.error, agent_log_tail(out))
    assert app_functions(out) == [
        "search_contacts",
        "send_message_to_user",
        "send_email",
        "send_message_to_user",
    ]
    requests = fake.llm_requests()
    assert len(requests) == 4
    # Turn 2 is a new task for the same agent (ARE's agent_loop: run(task, reset=False)): turn 1 is
    # still in its history, and the system prompt is sent once.
    third = prompt_text(requests[2])
    assert "What is Maria Garcia's email address?" in third and TURN1 in third
    assert "Sender: User\nMessage: Thanks. Send her an email" in third
    assert sum(m["role"] == "system" for m in requests[2]["body"]["messages"]) == 1
    assert len(trace(out)) == 4


def test_a_raised_final_message_ends_the_run_at_once_as_in_ares_runner(sandbox, images, fake, tmp_path):
    """ARE's termination step ends the turn on a send_message_to_user call whatever its outcome (the
    call is logged before it runs): the final message raising (a wrong argument name) ends the run
    with a verdict at once, as ARE's runner validates then, not at the scenario limit."""
    bad_send = blob("AgentUserInterface__send_message_to_user", {"message": CALENDAR_ANSWER})
    fake.set_script({"chat": [ADD, bad_send, SEND]})  # SEND: what a run that went on would ask next
    started = time.monotonic()
    result, out = run_harness(
        sandbox,
        AGENT_IMAGE,
        "demo_calendar_add_event",
        tmp_path,
        agent_env(fake),
        timeout=300,
        runtime=RUNTIME,
    )
    elapsed = time.monotonic() - started
    assert result.status == "completed" and result.success is not None, (
        result.status,
        result.error,
        agent_log_tail(out),
    )
    assert elapsed < 90, f"{elapsed:.0f}s: the run waited for the scenario limit ({result.error})"
    calls = tool_calls(out)
    assert [c["function"] for c in calls] == ["add_calendar_event", "send_message_to_user"]
    assert calls[-1]["ok"] is False and "message" in calls[-1]["error"], calls[-1]
    assert len(fake.llm_requests()) == 2  # ARE's agent asked nothing after its final message
    # The relay held the clock during both model calls, as for every agent (settings.md, sim_generation_time).
    assert result.sim_generation_time["mode"] == "measured" and result.sim_generation_time["calls_held"] == 2


# What the agent process can read, probed before the runtime starts (then it runs as usual).
PROBE = (
    "for f in /gaia2/input/scenario.json /proc/1/environ; do "
    "if cat $f >/dev/null 2>&1; then echo READABLE $f; else echo DENIED $f; fi; done; "
    "python -c 'import are.simulation.environment, gaia2_container.runtimes.are_default.standins' "
    "&& echo ARE-IMPORTED; exec python -m gaia2_container.runtimes.are_default"
)


@pytest.fixture(scope="module")
def probed_bad_actions(sandbox, images, tmp_path_factory):
    """One run for the two tests below (they read different things of it): the agent process probes
    what it can read, then ARE's agent meets a file name, a hidden tool and no action at all from the
    model before it solves the task."""
    from fake_llm.server import FakeLLM

    tmp = tmp_path_factory.mktemp("are-default-bad-actions")
    fake = FakeLLM(
        {
            "chat": [
                blob("open", {"file": "/gaia2/input/scenario.json"}),
                blob("AgentUserInterface__get_all_messages", {}),
                {"text": "I will just answer."},  # no Thought/Action: ARE asks again
                ADD,
                SEND,
            ]
        },
        tmp / "llm_requests.jsonl",
    )
    fake.start()
    try:
        result, out = run(
            sandbox,
            fake,
            "demo_calendar_add_event",
            tmp / "out",
            GAIA2_AGENT_COMMAND=f"sh -c {shlex.quote(PROBE)}",
        )
    finally:
        fake.stop()
    return result, out, fake.llm_requests()


def test_bad_actions_never_reach_the_daemon_and_the_run_still_ends_in_a_verdict(probed_bad_actions):
    """The model names a file, a hidden tool and no action at all: ARE's executor refuses each in the
    agent's own process (the error is the next observation); only real app calls reach the apps."""
    result, out, requests = probed_bad_actions
    assert (result.status, result.success) == ("completed", True), (result.error, agent_log_tail(out))
    assert app_functions(out) == ["add_calendar_event", "send_message_to_user"]
    assert len(requests) == 5
    assert "Error: unknown tool open, should be instead one of" in prompt_text(requests[1])
    assert "unknown tool AgentUserInterface__get_all_messages" in prompt_text(requests[2])
    assert "I will just answer." not in prompt_text(requests[3])  # a malformed reply is retried, not kept


def test_the_agent_process_cannot_read_the_scenario(probed_bad_actions):
    """The runtime imports ARE, but runs as the agent user like every runtime: ARE's code gives it
    no way into the scenario file (the answers) or the daemon's environment (the judge's key)."""
    result, out, _ = probed_bad_actions
    log = (out / "agent.log").read_text()
    assert "DENIED /gaia2/input/scenario.json" in log and "DENIED /proc/1/environ" in log, log[-3000:]
    assert "READABLE" not in log and "ARE-IMPORTED" in log
    assert (result.status, result.success) == ("completed", True), (result.error, log[-3000:])
