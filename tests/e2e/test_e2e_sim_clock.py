"""The simulated clock in real containers (daemon/clock/sim.py, daemon/clock/process.py).

- The built-in oracle moves ARE's clock itself: no real-time pacing, and its actions land at
  exactly the simulated times they are due.
- ARE's judge still checks simulated times: a time-split scenario ("in 2 minutes, send ...") passes
  with the oracle and with a scripted agent that waits, and fails when the agent acts early or late.
- A CLI agent's process clock shows the scenario's time, follows jumps and --time-speed, and the
  agent can neither move the clock through the oracle endpoint nor rewrite its clock file.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

ROOT = Path(__file__).resolve().parents[2]
TIME_SPLIT = ROOT / "tests" / "data" / "time_split_send_later.json"
PICKUP = ROOT / "examples" / "scenarios" / "demo_env_message_pickup.json"
CALENDAR = ROOT / "examples" / "scenarios" / "demo_calendar_add_event.json"
MESSAGE = "The meeting room is free now, come over."
ANSWER = f'Two minutes later I sent Leo Martin: "{MESSAGE}"'
START = 1727773200.0  # 2024-10-01 09:00:00 UTC, the demo scenarios' start_time


def _events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]


def _agent(script: str) -> dict[str, str]:
    return {"GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(script)}"}


# SystemApp is not a gaia2-cli command (nor is it in Meta's): scripted agents wait through the raw call.
WAIT = (
    "/opt/gaia2/venv/bin/python -m gaia2_container.runtimes.call "
    """SystemApp__wait_for_notification '{{"timeout": {}}}'"""
)


def _send_later(wait: str) -> str:
    """A CLI agent that waits (simulated) as told, then sends the message and the answer."""
    return f"""
set -e
{wait}
messages send-message --user-id user-leo-martin --content {shlex.quote(MESSAGE)}
/opt/gaia2/venv/bin/python -m gaia2_container.runtimes.reply {shlex.quote(ANSWER)}
"""


def test_oracle_fast_forwards_and_lands_on_the_due_times(images, tmp_path: Path):
    result = run_scenario(TIME_SPLIT, ORACLE_IMAGE, tmp_path)
    out = tmp_path / result.scenario_id
    assert (result.status, result.success) == ("completed", True), result.failure_reasons
    calls = [e for e in _events(out) if e["kind"] == "tool_call"]
    # Due 120 s and 121 s after the task, in simulated time, to the millisecond.
    assert [(c["function"], c["sim_time"] - START) for c in calls] == [
        ("send_message", 120.0),
        ("send_message_to_user", 121.0),
    ]
    assert (result.sim_start, result.sim_end, result.sim_elapsed) == (START, START + 121, 121.0)
    # Two simulated minutes without waiting them out.
    assert result.timings.run_s is not None and result.timings.run_s < 60
    status = json.loads((out / "daemon_status.json").read_text())
    assert (status["clock"], status["time_speed"]) == ("manual", 1.0)


def test_every_event_record_has_its_simulated_time(images, tmp_path: Path):
    """Scenario events, notifications, tool calls, messages and judgments all carry sim_time."""
    result = run_scenario(PICKUP, ORACLE_IMAGE, tmp_path)
    assert result.success is True, result.failure_reasons
    events = _events(tmp_path / result.scenario_id)
    assert {e["kind"] for e in events} >= {
        "env_event",
        "notification",
        "tool_call",
        "agent_message",
        "judgment",
    }
    for event in events:
        assert isinstance(event["sim_time"], float) and START <= event["sim_time"] <= START + 300, event
    env_event = next(e for e in events if e.get("event_id") == "env-emma-landing-time")
    assert env_event["sim_time"] == START + 5  # ARE's scheduled time, not when we noticed it
    record = json.loads((tmp_path / result.scenario_id / "result.json").read_text())
    assert (record["sim_start"], record["sim_end"], record["sim_elapsed"]) == (START, START + 8, 8.0)


@pytest.mark.parametrize(
    ("wait", "passes"),
    [
        (WAIT.format(120), True),  # on time: within ARE's tolerance
        (":", False),  # at once: 2 minutes early
        (WAIT.format(200), False),  # 80 s late
    ],
)
def test_judge_checks_the_agents_simulated_time(images, tmp_path: Path, wait: str, passes: bool):
    result = run_scenario(TIME_SPLIT, ORACLE_IMAGE, tmp_path, extra_env=_agent(_send_later(wait)))
    out = tmp_path / result.scenario_id
    assert result.status == "completed", (result.error, (out / "agent.log").read_text())
    assert result.success is passes, result.failure_reasons
    sent = next(e for e in _events(out) if e["kind"] == "tool_call" and e["function"] == "send_message")
    late_by = sent["sim_time"] - START - 120
    # What the judge saw: within [-10, +25] s of the oracle's time (ARE's default tolerance) or not.
    assert (-10 <= late_by <= 25) is passes, late_by
    status = json.loads((out / "daemon_status.json").read_text())
    assert status["clock"] == "real"  # agents get ARE's real-time loop


PROBE = r"""
import json, os, urllib.error, urllib.request
base = os.environ["GAIA2_TOOLS_URL"]
def post(path, body):
    req = urllib.request.Request(base + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        return urllib.request.urlopen(req).status
    except urllib.error.HTTPError as exc:
        return exc.code
print("ADVANCE", post("/oracle/advance", {"until": 1e12}))
print("CLOCK", json.load(urllib.request.urlopen(base + "/time"))["clock"])
"""


@pytest.mark.redteam
def test_an_agent_cannot_drive_the_clock(images, tmp_path: Path):
    """In the oracle image, but with an agent command: the clock endpoint is the oracle's only."""
    command = f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(PROBE)}"
    result = run_scenario(CALENDAR, ORACLE_IMAGE, tmp_path, extra_env={"GAIA2_AGENT_COMMAND": command})
    out = tmp_path / result.scenario_id
    log = (out / "agent.log").read_text()
    assert "ADVANCE 403" in log and "CLOCK real" in log, log
    assert result.sim_elapsed is not None and result.sim_elapsed < 120  # nobody jumped a trillion seconds


CLOCK_AGENT = r"""
echo "DATE $(date -u '+%F %H:%M')"
echo "PY $(python3 -c 'import time; print(int(time.time()))')"
echo "NOPRELOAD $(env -u LD_PRELOAD date -u '+%F')"
echo "LOGIN $(bash -lc 'command -v calendar; date -u +%F' | tr '\n' ' ')"
echo "OWNER $(stat -c '%U %a' /gaia2/clock) $(stat -c '%U %a' /gaia2/clock/offset)"
echo +0 > /gaia2/clock/offset 2>/dev/null && echo "WROTE" || echo "WRITE DENIED"
rm -f /gaia2/clock/offset 2>/dev/null; test -e /gaia2/clock/offset && echo "KEPT"
mv /gaia2/clock /gaia2/clock2 2>/dev/null && echo "MOVED" || echo "MOVE DENIED"
/opt/gaia2/venv/bin/python -m gaia2_container.runtimes.call \
  SystemApp__wait_for_notification '{"timeout": 200}' >/dev/null
echo "AFTER $(date +%s)"
"""


@pytest.mark.redteam
def test_cli_agent_sees_the_scenario_time_and_cannot_change_it(images, tmp_path: Path):
    before = datetime.now(UTC).timestamp()
    result = run_scenario(CALENDAR, ORACLE_IMAGE, tmp_path, extra_env=_agent(CLOCK_AGENT))
    out = tmp_path / result.scenario_id
    log = (out / "agent.log").read_text()
    assert "DATE 2024-10-01 09:0" in log, log  # the scenario's day, not the machine's
    seen = int(log.split("PY ")[1].split()[0])
    assert START <= seen < START + 120, log  # Python's clock too (libsimclock under time.time())
    # A harness that drops LD_PRELOAD for its shell (OpenClaw's exec) still gets the scenario's day
    # (/etc/ld.so.preload), and a login shell, whose /etc/profile resets PATH, still has the app commands.
    assert "NOPRELOAD 2024-10-01" in log, log
    assert "LOGIN /gaia2/bin/calendar 2024-10-01" in log, log
    assert "OWNER root 755 root 644" in log, log
    assert "WRITE DENIED" in log and "KEPT" in log and "MOVE DENIED" in log, log
    after = int(log.split("AFTER ")[1].split()[0])
    assert after - seen >= 200, log  # followed the wait_for_notification jump at once
    # The daemon's own clock stayed real.
    status = json.loads((out / "daemon_status.json").read_text())
    assert before - 5 <= status["started_at"] <= datetime.now(UTC).timestamp()
    assert all(e["wall_time"] >= before - 5 for e in _events(out))


SPEED_AGENT = r"""
t1=$(date +%s); sleep 2; t2=$(date +%s)
echo "DELTA $((t2 - t1))"
"""


def test_time_speed_scales_the_simulated_clock(images, tmp_path: Path):
    result = run_scenario(
        CALENDAR, ORACLE_IMAGE, tmp_path, extra_env={**_agent(SPEED_AGENT), "GAIA2_TIME_SPEED": "10"}
    )
    out = tmp_path / result.scenario_id
    log = (out / "agent.log").read_text()
    delta = int(log.split("DELTA ")[1].split()[0])
    assert delta >= 12, log  # 2 wall seconds are 20 simulated ones (the file is rewritten every 0.1 s)
    status = json.loads((out / "daemon_status.json").read_text())
    assert (status["clock"], status["time_speed"]) == ("real", 10.0)
    assert result.sim_elapsed is not None and result.sim_elapsed >= 15


TLS_AGENT = r"""
import os, pathlib, socket, ssl, threading
home = pathlib.Path(os.environ["HOME"])
(home / "c.pem").write_text(os.environ["CERT_PEM"]); (home / "k.pem").write_text(os.environ["KEY_PEM"])
server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); server.load_cert_chain(home / "c.pem", home / "k.pem")
sock = socket.socket(); sock.bind(("127.0.0.1", 0)); sock.listen(1)
def serve():
    conn, _ = sock.accept()
    try:
        server.wrap_socket(conn, server_side=True).close()
    except Exception:
        conn.close()
threading.Thread(target=serve, daemon=True).start()
client = ssl.create_default_context(cafile=str(home / "c.pem"))
try:
    client.wrap_socket(socket.create_connection(sock.getsockname()), server_hostname="localhost").close()
    print("TLS OK")
except ssl.SSLError as exc:
    print("TLS FAILED", exc)
"""


@pytest.mark.parametrize("real_clock", [False, True])
def test_tls_certificates_and_the_faked_clock(images, tmp_path: Path, real_clock: bool):
    """A certificate issued today is "not yet valid" on the scenario's 2024 date for a process
    that verifies it itself: agents reach providers through the relay (plain HTTP on loopback,
    the daemon does TLS with the real clock), or opt out with GAIA2_AGENT_REAL_CLOCK=1."""
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
            "-keyout",
            str(tmp_path / "k.pem"),
            "-out",
            str(tmp_path / "c.pem"),
        ],
        check=True,
        capture_output=True,
    )
    env = {
        "GAIA2_AGENT_COMMAND": f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(TLS_AGENT)}",
        "CERT_PEM": (tmp_path / "c.pem").read_text(),
        "KEY_PEM": (tmp_path / "k.pem").read_text(),
    }
    if real_clock:
        env["GAIA2_AGENT_REAL_CLOCK"] = "1"
    result = run_scenario(CALENDAR, ORACLE_IMAGE, tmp_path / "out", extra_env=env)
    log = (tmp_path / "out" / result.scenario_id / "agent.log").read_text()
    if real_clock:
        assert "TLS OK" in log, log
    else:
        assert "TLS FAILED" in log and "not yet valid" in log, log
