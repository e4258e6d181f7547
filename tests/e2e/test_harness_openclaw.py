"""OpenClaw (npm `openclaw`) as the agent under test, end to end in its own image.

The fake provider on the host speaks chat completions (SSE, as OpenClaw streams) and scripts
OpenClaw's own shell tool, `exec`, running the app commands; ARE's judge decides. Every turn is
`openclaw agent --local --session-id gaia2`, so turn 2 must carry turn 1's history.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.viewer import Site
from gaia2_runner.output.read.trace_parsers import read_trace
from harness_support import (CALENDAR_ANSWER as ANSWER, add_event_command, agent_env, app_functions,
                             assert_cli_wrong_answer_fails, explain, run_cli, run_harness)

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(1800)]

SECRET = "sk-test-OPENCLAW-SECRET"
SEND_EMAIL = shlex.join(["emails", "send-email", "--recipients", '["maria.garcia@example.com"]',
                         "--subject", "Offsite agenda",
                         "--content", "Hi Maria, the offsite agenda will be ready by Thursday. Sam"])


def exec_call(command: str) -> dict:
    return {"tool_calls": [{"name": "exec", "arguments": {"command": command}}]}


@pytest.fixture(scope="module")
def image(harness_image):
    return harness_image("openclaw")


def run(backend, image: str, fake, scenario: str, out: Path):
    return run_harness(backend, image, scenario, out, agent_env("openai-compat", fake, SECRET, "/v1"), timeout=600)


def trace(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines() if line.strip()]


def test_right_solution_through_exec_is_judged_success_and_traced(backend, image, fake, tmp_path):
    fake.set_script({"chat": [exec_call(add_event_command("14:00:00")), {"text": ANSWER}]})
    result, run_dir = run(backend, image, fake, "demo_calendar_add_event", tmp_path)
    assert (result.status, result.success) == ("completed", True), explain(result, run_dir)
    assert app_functions(run_dir) == ["add_calendar_event", "send_message_to_user"]
    assert (run_dir / "agent_response.txt").read_text() == ANSWER
    requests = fake.llm_requests()
    assert len(requests) == 2 and all(r["path"] == "/v1/chat/completions" for r in requests)
    first = requests[0]["body"]
    assert first["stream"] is True and [t["function"]["name"] for t in first["tools"]] == ["exec"]
    assert "## /gaia2/agent/AGENTS.md" in first["messages"][0]["content"]  # the rules reach the model
    tool_result = requests[1]["body"]["messages"][-1]
    assert tool_result["role"] == "tool" and '"status": "success"' in str(tool_result["content"]), tool_result
    assert {r["headers"]["authorization"] for r in requests} == {f"Bearer {SECRET}"}
    # One trace line per model request, each the raw SSE stream as relayed; the trace page shows both.
    lines = trace(run_dir)
    assert len(lines) == 2 and all(line["http_status"] == 200 for line in lines)
    assert all(line["raw_response"].startswith("data: ") for line in lines)
    assert lines[0]["url"].endswith("/v1/chat/completions")
    calls = read_trace(run_dir / "trace.jsonl")
    assert [c.response.tool_calls[0].name for c in calls[:1]] == ["exec"] and calls[1].response.text == ANSWER
    assert all(not c.warnings for c in calls), [c.warnings for c in calls]
    Site(tmp_path).refresh()
    page = (run_dir / "trace.html").read_text()
    assert "calendar add-event" in page and "Smile Dental" in page
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path


def test_wrong_time_is_judged_a_failure(backend, image, fake, tmp_path):
    fake.set_script({"chat": [exec_call(add_event_command("15:00:00")), {"text": ANSWER}]})
    run = run_cli("openclaw", "demo_calendar_add_event", tmp_path / "out", fake, SECRET, "/v1")
    assert_cli_wrong_answer_fails(run, "openclaw", SECRET)
    assert app_functions(run.out) == ["add_calendar_event", "send_message_to_user"]


def test_second_user_message_continues_the_same_session(backend, image, fake, tmp_path):
    fake.set_script({"chat": [
        {"text": "Maria Garcia's email address is maria.garcia@example.com."},
        exec_call(SEND_EMAIL),
        {"text": "I emailed Maria (maria.garcia@example.com) with the subject 'Offsite agenda'."},
    ]})
    result, run_dir = run(backend, image, fake, "demo_multi_turn_email", tmp_path)
    assert (result.status, result.success) == ("completed", True), explain(result, run_dir)
    requests = fake.llm_requests()
    assert len(requests) == 3
    turn2 = requests[1]["body"]["messages"]
    said = [json.dumps(m.get("content")) for m in turn2]
    assert any("What is Maria Garcia" in s for s in said) and any("maria.garcia@example.com." in s for s in said)
    assert "Offsite agenda" in said[-1]
    assert app_functions(run_dir) == ["send_message_to_user", "send_email", "send_message_to_user"]


def test_exec_shell_sees_the_scenario_date(backend, image, fake, tmp_path):
    """OpenClaw's exec drops LD_PRELOAD from the shells it spawns; the image's /etc/ld.so.preload keeps
    the simulated clock there (the agent's GAIA2_SIMCLOCK_FILE gets through), so `date` shows the
    scenario's day, as in Meta's VMs, and not the machine's."""
    fake.set_script({"chat": [exec_call("echo PRELOAD=${LD_PRELOAD:-none}; date -u +DATE=%F"), {"text": "ok"}]})
    result, run_dir = run(backend, image, fake, "demo_calendar_add_event", tmp_path)
    assert result.status in ("completed", "failed"), explain(result, run_dir)
    shown = json.dumps(fake.llm_requests()[1]["body"]["messages"][-1])
    assert "PRELOAD=none" in shown and "DATE=2024-10-01" in shown, shown
