"""OpenClaw (npm `openclaw`): what only this harness does, on the runs the common harness tests share
(tests/e2e/test_harnesses.py, tests/support/harness_cases.py).

The fake provider on the host speaks chat completions (SSE, as OpenClaw streams) and scripts
OpenClaw's own shell tool, `exec`. Every turn is `openclaw agent --local --session-id gaia2`, so
turn 2 must carry turn 1's history.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia2_runner.output.read.trace_parsers import read_trace
from gaia2_runner.viewer import Site
from harness_cases import CALENDAR, CASES, MULTI_TURN
from harness_support import CALENDAR_ANSWER as ANSWER
from harness_support import app_functions, explain, run_harness

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(1800)]

CASE = CASES["openclaw"]


def trace(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines() if line.strip()]


def test_exec_streams_chat_with_the_rules_and_is_traced(harness_runs):
    run = harness_runs(CASE.name, CALENDAR)
    run_dir = run.out
    requests = run.fake.llm_requests()
    assert all(r["path"] == "/v1/chat/completions" for r in requests)
    first = requests[0]["body"]
    assert first["stream"] is True and [t["function"]["name"] for t in first["tools"]] == ["exec"]
    assert "## /gaia2/agent/AGENTS.md" in first["messages"][0]["content"]  # the rules reach the model
    tool_result = requests[1]["body"]["messages"][-1]
    assert tool_result["role"] == "tool" and '"status": "success"' in str(tool_result["content"]), tool_result
    # One trace line per model request, each the raw SSE stream as relayed; the trace page shows both.
    lines = trace(run_dir)
    assert len(lines) == 2 and all(line["http_status"] == 200 for line in lines)
    assert all(line["raw_response"].startswith("data: ") for line in lines)
    assert lines[0]["url"].endswith("/v1/chat/completions")
    calls = read_trace(run_dir / "trace.jsonl")
    assert [c.response.tool_calls[0].name for c in calls[:1]] == ["exec"] and calls[1].response.text == ANSWER
    assert all(not c.warnings for c in calls), [c.warnings for c in calls]
    Site(run.root).refresh()
    page = (run_dir / "trace.html").read_text()
    assert "calendar add-event" in page and "Smile Dental" in page


def test_second_user_message_continues_the_same_session(harness_runs):
    run = harness_runs(CASE.name, MULTI_TURN)
    turn2 = run.fake.llm_requests()[1]["body"]["messages"]
    said = [json.dumps(m.get("content")) for m in turn2]
    assert any("What is Maria Garcia" in s for s in said) and any(
        "maria.garcia@example.com." in s for s in said
    )
    assert "Offsite agenda" in said[-1]
    assert app_functions(run.out) == ["send_message_to_user", "send_email", "send_message_to_user"]


def test_exec_shell_sees_the_scenario_date(sandbox, harness_image, fake, tmp_path):
    """OpenClaw's exec drops LD_PRELOAD from the shells it spawns; the image's /etc/ld.so.preload keeps
    the simulated clock there (the agent's GAIA2_SIMCLOCK_FILE gets through), so `date` shows the
    scenario's day, as in Meta's VMs, and not the machine's."""
    fake.set_script(
        {"chat": [CASE.shell("echo PRELOAD=${LD_PRELOAD:-none}; date -u +DATE=%F"), {"text": "ok"}]}
    )
    result, run_dir = run_harness(
        sandbox, harness_image(CASE.name), CALENDAR, tmp_path, CASE.run_env(fake), timeout=CASE.timeout
    )
    assert result.status in ("completed", "failed"), explain(result, run_dir)
    shown = json.dumps(fake.llm_requests()[1]["body"]["messages"][-1])
    assert "PRELOAD=none" in shown and "DATE=2024-10-01" in shown, shown
