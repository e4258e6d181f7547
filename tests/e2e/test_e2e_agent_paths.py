"""The two ways an agent reaches the apps, each driven by a scripted agent in a real container.

- CLI agents: Meta's gaia2-cli commands on PATH (`calendar add-event --title ...`).
- Function-calling agents: the JSON tool schema from `GET /tools` and `POST /call`.

Both scripted agents run as the unprivileged agent user through GAIA2_AGENT_COMMAND and must be
judged by ARE exactly like the oracle.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)

CLI_AGENT = f"""
set -e
calendar --help | grep -q add-event
calendar add-event --help | grep -q -- --start-datetime
calendar add-event --title 'Dentist appointment' \\
  --start-datetime '2024-10-03 14:00:00' --end-datetime '2024-10-03 15:00:00' \\
  --location 'Smile Dental, 12 Rue Oberkampf, Paris' > /tmp/created.json
grep -q '"status": "success"' /tmp/created.json
calendar no_such_function 2> /tmp/err.txt || grep -q 'No such command' /tmp/err.txt
/opt/gaia2/venv/bin/python -m gaia2_container.runtimes.reply {shlex.quote(ANSWER)}
"""

# A function-calling agent in miniature: schema in, JSON calls out, task read from the inbox.
TOOL_AGENT = r"""
import json, os, time, urllib.request
base = os.environ["GAIA2_TOOLS_URL"]
def get(path):
    return json.load(urllib.request.urlopen(base + path))
def call(tool, **args):
    req = urllib.request.Request(base + "/call", json.dumps({"tool": tool, "args": args}).encode(),
                                 {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
tools = {t["name"]: t for t in get("/tools")["tools"]}
schema = tools["CalendarApp__add_calendar_event"]["parameters"]
assert schema["type"] == "object" and "start_datetime" in schema["properties"], schema
assert schema["properties"]["start_datetime"]["type"] == "string"
assert isinstance(schema["required"], list)
assert "AgentUserInterface__get_all_messages" not in tools
while not get("/inbox")["messages"]:
    time.sleep(0.2)
task = get("/inbox")["messages"][0]["content"]
assert "Dentist appointment" in task, task
bad = call("CalendarApp__add_calendar_event", title=1)
assert bad["ok"] is False and bad["error"], bad
ok = call("CalendarApp__add_calendar_event", title="Dentist appointment",
          start_datetime="2024-10-03 14:00:00", end_datetime="2024-10-03 15:00:00",
          location="Smile Dental, 12 Rue Oberkampf, Paris")
assert ok["ok"], ok
print("created", ok["result"])
call("AgentUserInterface__send_message_to_user", content=os.environ["ANSWER"])
"""


def _events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]


def test_cli_agent_solves_the_scenario(images, tmp_path: Path):
    result = run_scenario(
        SCENARIO,
        ORACLE_IMAGE,
        tmp_path,
        extra_env={"GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(CLI_AGENT)}"},
    )
    assert (result.status, result.success) == ("completed", True), (result.error, result.failure_reasons)
    calls = [e for e in _events(tmp_path / result.scenario_id) if e["kind"] == "tool_call"]
    assert [c["function"] for c in calls] == ["add_calendar_event", "send_message_to_user"]
    assert calls[0]["write"] is True and calls[0]["args"]["title"] == "Dentist appointment"


def test_function_calling_agent_solves_the_scenario(images, tmp_path: Path):
    command = f"python3 -c {shlex.quote(TOOL_AGENT)}"
    result = run_scenario(
        SCENARIO,
        ORACLE_IMAGE,
        tmp_path,
        extra_env={"GAIA2_AGENT_COMMAND": f"/opt/gaia2/venv/bin/{command}", "ANSWER": ANSWER},
    )
    out = tmp_path / result.scenario_id
    assert (result.status, result.success) == ("completed", True), (out / "agent.log").read_text()
    calls = [e for e in _events(out) if e["kind"] == "tool_call"]
    # The rejected call is recorded with its error but, being failed, is not judged.
    assert calls[0]["ok"] is False and calls[0]["error"]
    assert result.agent_actions == 3


def test_soft_check_without_judge_is_a_clear_infrastructure_error(images, tmp_path: Path):
    """A differently worded answer needs ARE's LLM soft check; with no judge configured that is
    not a verdict but an error that says how to configure one."""
    agent = CLI_AGENT.replace(shlex.quote(ANSWER), shlex.quote("All set, the dentist is booked."))
    result = run_scenario(
        SCENARIO,
        ORACLE_IMAGE,
        tmp_path,
        extra_env={"GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(agent)}"},
    )
    assert result.success is None and result.status == "error"
    assert "judge" in result.error and "--judge-model" in result.error


def test_ca_bundle_reaches_the_agent(images, tmp_path: Path, monkeypatch):
    bundle = tmp_path / "corp-ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\nTEST-CA-MARKER\n-----END CERTIFICATE-----\n")
    monkeypatch.setenv("GAIA2_CA_BUNDLE", str(bundle))
    probe = 'echo "cert=$SSL_CERT_FILE req=$REQUESTS_CA_BUNDLE"; cat "$SSL_CERT_FILE"'
    result = run_scenario(
        SCENARIO,
        ORACLE_IMAGE,
        tmp_path / "out",
        extra_env={"GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(probe)}"},
    )
    log = (tmp_path / "out" / result.scenario_id / "agent.log").read_text()
    assert "cert=/gaia2/ca/ca-bundle.pem req=/gaia2/ca/ca-bundle.pem" in log
    assert "TEST-CA-MARKER" in log, "the agent user can read the bundle"
    assert result.success is False  # the probe answered nothing: judged, not an infra error
