"""Red team: an agent that exhausts what it shares with the daemon cannot turn its failure into
an infrastructure error.

Real runners and containers. One scripted agent opens as many connections as its file limit
allows to the tool API and to the adapter port, holds them for longer than the daemon's idle
watchdog (which takes a runner whose polls stop arriving for gone), then gives a wrong answer. The
daemon refuses the agent's connections past its bound, so the runner's polls keep getting
through, and the run ends with a verdict: failed, not an error `--retry` would run again.
Another forks until it can fork no more and waits for the time limit: judged (timeout), and none
of its processes outlives the run.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_runner import contract
from gaia2_runner.config import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "examples" / "scenarios" / "demo_calendar_add_event.json"
IDLE_S = 4  # the watchdog: the flood is held three times as long
AGENTS_MAX = 128  # containers/gaia2_container/daemon/connections.py: AGENT_CONNECTIONS_MAX

AGENT = f"""
import json, os, resource, select, socket, time, urllib.request
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
base = os.environ["GAIA2_TOOLS_URL"]
targets = [("127.0.0.1", int(base.rsplit(":", 1)[1])), ("127.0.0.1", {contract.ADAPTER_PORT})]
held, failed = [], 0
for i in range(min(hard, 4096) - 64):
    s = socket.socket()
    s.settimeout(0.5)
    try:
        s.connect(targets[i % 2])
        held.append(s)
    except OSError:
        failed += 1
        s.close()
time.sleep(2)  # the daemon has accepted (or refused) them all
closed = {{s for s in select.select(held, [], [], 0)[0]}}  # a refused connection reads EOF
alive = [s for s in held if s not in closed]
print("FLOOD " + json.dumps({{"opened": len(held), "failed": failed, "alive": len(alive)}}), flush=True)
time.sleep({IDLE_S * 3})
for s in alive[:4]:  # room for the answer
    s.close()
req = urllib.request.Request(base + "/call", json.dumps({{"tool": "AgentUserInterface__send_message_to_user",
    "args": {{"content": "I could not add the event."}}}}).encode(), {{"Content-Type": "application/json"}})
print("ANSWERED", urllib.request.urlopen(req, timeout=30).status, flush=True)
time.sleep(3600)  # and it keeps the rest
"""
FORK_BOMB = """
import os, time
forked = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3600)
        os._exit(0)
    forked += 1
print("FORKED", forked, flush=True)
time.sleep(3600)
"""


def command(script: str) -> str:
    return f"python3 -c \"import base64; exec(base64.b64decode('{base64.b64encode(script.encode()).decode()}'))\""


def run(tmp_path: Path, script: str, timeout_s: int) -> tuple[subprocess.CompletedProcess, dict, str, Path]:
    """The runner on the calendar demo with `script` as the agent: its result, agent.log, output."""
    env = {**os.environ, contract.ENV_IDLE_TIMEOUT: str(IDLE_S)}
    proc = subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", "run", "--scenario", str(SCENARIO), "--image", ORACLE_IMAGE,
         "--output-dir", str(tmp_path), "--timeout", str(timeout_s), "--env", f"GAIA2_AGENT_COMMAND={command(script)}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=400)
    out = tmp_path / SCENARIO.stem
    result = json.loads((out / "result.json").read_text())
    return proc, result, (out / "agent.log").read_text(), out


def test_a_flood_of_connections_ends_in_a_verdict_not_an_infrastructure_error(images, tmp_path):
    proc, result, agent_log, out = run(tmp_path, AGENT, 120)
    assert result["status"] == "failed" and result["success"] is False, (result, agent_log[-2000:], proc.stderr)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    flood = json.loads(agent_log.split("FLOOD ", 1)[1].splitlines()[0])
    assert flood["opened"] >= 900, flood  # well past the daemon's 1024 file descriptors
    assert flood["alive"] <= AGENTS_MAX, flood
    assert "ANSWERED 200" in agent_log
    assert "refused the agent's connection" in (out / "container.log").read_text()


def test_a_fork_bomb_is_judged_and_leaves_no_process_behind(images, tmp_path):
    proc, result, agent_log, out = run(tmp_path, FORK_BOMB, 20)
    assert (result["status"], result["success"]) == ("timeout", False), (result, agent_log[-2000:], proc.stderr)
    forked = int(agent_log.split("FORKED ", 1)[1].split()[0])
    assert forked >= 200, agent_log[-2000:]
    killed = int((out / "container.log").read_text().split("killed ", 1)[1].split()[0])
    assert killed >= forked, agent_log[-2000:]  # every child (the agent itself got SIGTERM first)
