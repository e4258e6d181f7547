"""Scripted CLI agents solve demo scenarios through the gaia2-cli surface in real containers.

Each script runs as the unprivileged agent user (GAIA2_AGENT_COMMAND) and uses only Meta's command
names and flags (`calendar add-event`, `emails reply-to-email`, `cabs order-ride`); underneath, ARE
runs, logs and judges the calls. The final answer goes through the tool API (reply helper): the user
interface is not a gaia2-cli command.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
REPLY = "/opt/gaia2/venv/bin/python -m gaia2_container.runtimes.reply"


def _answer(name: str) -> str:
    """The oracle's final message, word for word (no LLM judge is configured in CI)."""
    scenario = json.loads((SCENARIOS / f"{name}.json").read_text())
    sends = [e for e in scenario["events"] if e["action"]["function"] == "send_message_to_user"]
    return next(a["value"] for a in sends[-1]["action"]["args"] if a["name"] == "content")


def _run(tmp_path: Path, name: str, script: str):
    result = run_scenario(
        SCENARIOS / f"{name}.json",
        ORACLE_IMAGE,
        tmp_path,
        extra_env={"GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(script)}"},
    )
    out = tmp_path / result.scenario_id
    log = (out / "agent.log").read_text() if (out / "agent.log").exists() else ""
    calls = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines() if x.strip()]
    return result, log, [c for c in calls if c["kind"] == "tool_call"]


CALENDAR = f"""
set -e
ls /gaia2/bin | tr '\\n' ' ' | sed 's/^/COMMANDS /'; echo
calendar --help | grep -q 'add-event'
calendar add-event --help | grep -q -- '--start-datetime'
rc=0; calendar get-event --event-id no-such-event 2> err.txt > out.txt || rc=$?
echo "APP-ERROR rc=$rc stderr=$(cat err.txt) stdout=$(cat out.txt)"
rc=0; calendar get-events --start-date '2024-10-03 00:00:00' 2> err.txt || rc=$?
echo "USAGE-ERROR rc=$rc $(tail -n 1 err.txt)"
calendar add-event --title 'Dentist appointment' --start-datetime '2024-10-03 14:00:00' \\
  --end-datetime '2024-10-03 15:00:00' --location 'Smile Dental, 12 Rue Oberkampf, Paris' \\
  | tr -d '\\n' | sed 's/^/ADDED /'
echo
{REPLY} {shlex.quote(_answer("demo_calendar_add_event"))}
"""


def test_calendar_add_event_through_the_cli(images, tmp_path: Path):
    result, log, calls = _run(tmp_path, "demo_calendar_add_event", CALENDAR)
    assert (result.status, result.success) == ("completed", True), (result.failure_reasons, log)
    # Only the scenario's apps are commands, named as Meta's gaia2-cli names them.
    assert "COMMANDS calendar contacts " in log, log
    assert "APP-ERROR rc=1 stderr=Calendar Event with id no-such-event does not exist. stdout=" in log, log
    assert "USAGE-ERROR rc=2 Error: Missing option '--end-date'." in log, log
    added = json.loads(next(x for x in log.splitlines() if x.startswith("ADDED "))[6:])
    assert added["status"] == "success" and added["event_id"]
    writes = [(c["app"], c["function"], c["args"]) for c in calls if c["ok"] and c["write"]]
    assert writes[0] == (
        "CalendarApp",
        "add_calendar_event",
        {
            "title": "Dentist appointment",
            "start_datetime": "2024-10-03 14:00:00",
            "end_datetime": "2024-10-03 15:00:00",
            "location": "Smile Dental, 12 Rue Oberkampf, Paris",
        },
    )


EMAILS = f"""
set -e
emails list-emails | grep -q email-offsite-rsvp
emails reply-to-email --email-id email-offsite-rsvp \\
  --content 'Hi Maria, yes, I will attend the offsite on Friday. Best, Sam' | grep -q '"status": "ok"'
{REPLY} {shlex.quote(_answer("demo_email_reply"))}
"""


def test_emails_reply_through_the_cli(images, tmp_path: Path):
    result, log, calls = _run(tmp_path, "demo_email_reply", EMAILS)
    assert (result.status, result.success) == ("completed", True), (result.failure_reasons, log)
    assert ("EmailClientV2", "reply_to_email") in [(c["app"], c["function"]) for c in calls if c["write"]]


CABS = f"""
set -e
cabs order-ride --start-location 'Gare de Lyon, Paris' --end-location 'Orly Airport, Paris' \\
  --service-type Premium --ride-time '2024-10-01 11:30:00' | grep -q '"data"'
{REPLY} {shlex.quote(_answer("demo_cab_order"))}
"""


def test_cabs_order_ride_through_the_cli(images, tmp_path: Path):
    result, log, calls = _run(tmp_path, "demo_cab_order", CABS)
    assert (result.status, result.success) == ("completed", True), (result.failure_reasons, log)
    assert [c["function"] for c in calls] == ["order_ride", "send_message_to_user"]


def test_a_wrong_flag_value_is_judged_a_failure(images, tmp_path: Path):
    wrong = CALENDAR.replace(
        "--start-datetime '2024-10-03 14:00:00'", "--start-datetime '2024-10-03 13:00:00'"
    )
    result, log, _calls = _run(tmp_path, "demo_calendar_add_event", wrong)
    assert (result.status, result.success) == ("completed", False), (result.error, log)
    assert any("start_datetime" in r for r in result.failure_reasons), result.failure_reasons


@pytest.mark.redteam
def test_commands_are_root_owned_and_reach_only_the_tool_api(images, tmp_path: Path):
    """The agent user cannot rewrite a command, and a command cannot call a tool outside the scenario."""
    probe = """
echo "OWNER $(stat -c '%U %a' /gaia2/bin/calendar)"
echo x >> /gaia2/bin/calendar 2>/dev/null && echo "WROTE" || echo "WRITE DENIED"
rc=0; emails list-emails > /dev/null 2>&1 || rc=$?; echo "ABSENT rc=$rc"
"""
    result, log, _calls = _run(tmp_path, "demo_calendar_add_event", probe)
    assert "OWNER root 755" in log and "WRITE DENIED" in log, log
    assert "ABSENT rc=127" in log, log  # no emails app in this scenario: no such command
    assert result.success is False
