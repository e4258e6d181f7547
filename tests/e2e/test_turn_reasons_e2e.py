"""Multi-turn reasons on real runs of the two-turn demo (real containers, ARE's own judge): turns count
from 1 in result.json, the reason names the turn the agent stopped in (not ARE's "Validation called
at turn -1", which stays in the rationale, as ARE's own words), and a turn is numbered as the viewer
shows it."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.viewer import Site

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_multi_turn_email.json"
REPLY = "/opt/gaia2/venv/bin/python -m gaia2_container.runtimes.reply"
# Turn 1 answered as the oracle does; the agent then waits for turn 2's message and stops without
# sending the email.
ANSWERS_TURN_1_ONLY = f"""
{REPLY} "Maria Garcia's email address is maria.garcia@example.com."
sleep 8
"""


def run(tmp_path: Path, script: str) -> dict:
    result = run_scenario(
        SCENARIO, ORACLE_IMAGE, tmp_path, extra_env={"GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(script)}"}
    )
    assert (result.status, result.success) == ("agent_exit", False), (result.error, result.failure_reasons)
    Site(tmp_path).refresh()
    return json.loads((tmp_path / "demo_multi_turn_email" / "result.json").read_text())


def test_an_agent_that_stops_in_turn_1_fails_turn_1_and_the_reason_says_so(images, tmp_path: Path) -> None:
    result = run(tmp_path, "true")
    reason = (
        "the agent stopped in turn 1 of 2: ARE judges a scenario only after its last turn, which never began"
    )
    assert result["failure_reasons"][0] == f"turn 1: {reason}"
    assert result["judgment"]["failed_turn_number"] == 1 and result["judgment"]["reason"] == reason
    assert [(t["turn_number"], t["success"]) for t in result["turns"]] == [(1, False)]
    assert "Validation called at turn -1" in result["judgment"]["rationale"]  # ARE's own words, kept
    page = (tmp_path / "demo_multi_turn_email" / "trace.html").read_text()
    assert "failed at turn 1<" in page


def test_an_agent_that_stops_in_turn_2_fails_turn_2_on_its_own_missing_call(images, tmp_path: Path) -> None:
    result = run(tmp_path, ANSWERS_TURN_1_ONLY)
    assert [(t["turn_number"], t["success"]) for t in result["turns"]] == [(1, True), (2, False)]
    assert result["failure_reasons"][0] == "turn 2: tool calls differ: send_email ×0 (expected ×1)"
    assert result["judgment"]["failed_turn_number"] == 2
    events = [
        json.loads(line)
        for line in (tmp_path / "demo_multi_turn_email" / "events.jsonl").read_text().splitlines()
    ]
    assert [e["turn_number"] for e in events if e["kind"] == "agent_message"] == [1]
    assert [e["turn_number"] for e in events if e["kind"] in ("judgment", "judge_detail")] == [1, 1, 2, 2]
    assert "send_message_to_agent" not in result["failure_reasons"][0]
