"""Red team: an agent that exhausts what it shares with the daemon cannot turn its failure into
an infrastructure error.

Real runs, real containers, the fake provider on the host behind the daemon's model relay.

- Connections: the agent opens two connections to the relay, then as many to the tool API and the
  adapter port as its file limit allows, and holds them all. Unbounded, the daemon (one process,
  1024 files here) would have none left to reach the provider with: the relay would witness an
  "unreachable" provider twice, and the failing run would become an infrastructure error that
  `--retry` runs again. The daemon refuses the agent's connections past its bound, so the relay
  reaches the provider, the runner's polls get through (the watchdog is set to 4 s), and the
  agent's wrong answer is judged: a failure.
- Pids: the agent forks until it can fork no more and waits for the time limit: judged
  (timeout), and none of its processes outlives the run.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from gaia2_contract import constants as contract
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

HOST = "host.containers.internal"
SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
AGENTS_MAX = 128  # containers/gaia2_container/daemon/http/connections.py: AGENT_CONNECTIONS_MAX

FLOOD = f"""
import json, os, resource, select, signal, socket, time, urllib.request
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
tools = os.environ["GAIA2_TOOLS_URL"]
relay = os.environ["GAIA2_AGENT_BASE_URL"].split("//", 1)[1].split("/")[0].split(":")
relay_conns = [socket.create_connection((relay[0], int(relay[1])), timeout=30) for _ in range(2)]
targets = [("127.0.0.1", int(tools.rsplit(":", 1)[1])), ("127.0.0.1", {contract.ADAPTER_PORT})]

def flood(report):
    held, failed = [], 0
    for i in range(min(hard, 4096) - 64):
        s = socket.socket()
        s.settimeout(10)
        try:
            s.connect(targets[i % 2])
            held.append(s)
        except OSError:
            failed += 1
            s.close()
    alive, steady = len(held), 0
    while steady < 3:  # until the daemon has accepted (or refused) every queued one
        time.sleep(1)
        now = len(held) - len(select.select(held, [], [], 0)[0])  # a refused one reads EOF
        steady, alive = (steady + 1 if now == alive else 0), now
    os.write(report, (json.dumps({{"opened": len(held), "failed": failed, "alive": alive}}) + "\\n").encode())
    time.sleep(3600)  # holding them

# Two processes: together they hold more connections than one process may have files.
read_end, write_end = os.pipe()
workers = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        flood(write_end)
    workers.append(pid)
reports = os.fdopen(read_end)
counts = [json.loads(reports.readline()) for _ in workers]
print("FLOOD " + json.dumps({{k: sum(c[k] for c in counts) for k in counts[0]}}), flush=True)
body = json.dumps({{"model": "qwen", "messages": [{{"role": "user", "content": "hi"}}]}}).encode()
for conn in relay_conns:  # the provider, through the relay, while the flood is held
    conn.sendall(b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: relay\\r\\nContent-Type: application/json\\r\\n"
                 + b"Content-Length: " + str(len(body)).encode() + b"\\r\\nConnection: close\\r\\n\\r\\n" + body)
    print("RELAY " + conn.makefile("rb").readline().decode().strip(), flush=True)
time.sleep(12)  # three times the watchdog's idle timeout: the runner must keep getting through
os.kill(workers[0], signal.SIGKILL)  # room for the answer; the other worker keeps its share
time.sleep(1)
req = urllib.request.Request(tools + "/call", json.dumps({{"tool": "AgentUserInterface__send_message_to_user",
    "args": {{"content": "I could not add the event."}}}}).encode(), {{"Content-Type": "application/json"}})
urllib.request.urlopen(req, timeout=30)  # the last turn: the run ends, and the agent with it
time.sleep(3600)
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


def run(tmp_path: Path, script: str, timeout_s: float, **env: str):
    command = f"python3 -c \"import base64; exec(base64.b64decode('{base64.b64encode(script.encode()).decode()}'))\""
    result = run_scenario(
        SCENARIO, ORACLE_IMAGE, tmp_path, timeout=timeout_s, extra_env={"GAIA2_AGENT_COMMAND": command, **env}
    )
    out = tmp_path / result.scenario_id
    return result, (out / "agent.log").read_text(), out


def test_a_flood_of_connections_ends_in_a_verdict_not_an_infrastructure_error(
    images, fake, tmp_path, monkeypatch
):
    fake.set_script({"chat": [{"text": "ok", "repeat": 4}]})
    monkeypatch.setenv(contract.ENV_IDLE_TIMEOUT, "4")
    result, agent_log, out = run(
        tmp_path,
        FLOOD,
        120,
        GAIA2_AGENT_PROVIDER="openai",
        GAIA2_AGENT_MODEL="qwen",
        GAIA2_AGENT_BASE_URL=f"http://{HOST}:{fake.port}",
    )
    assert result.success is False and result.status in ("completed", "failed"), (result, agent_log[-2000:])

    flood = json.loads(agent_log.split("FLOOD ", 1)[1].splitlines()[0])
    assert flood["opened"] >= 1800, flood  # well past the daemon's 1024 file descriptors
    assert flood["alive"] <= AGENTS_MAX, flood
    assert agent_log.count("RELAY HTTP/1.0 200") == 2, agent_log[-2000:]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [e["http_status"] for e in events if e["kind"] == "provider_call"] == [200, 200], events
    answers = [e for e in events if e["kind"] == "tool_call" and e["function"] == "send_message_to_user"]
    assert [(a["ok"], a["args"]["content"]) for a in answers] == [(True, "I could not add the event.")], (
        events
    )
    assert "refused the agent's connection" in (out / "container.log").read_text()


@pytest.mark.both_engines
def test_a_fork_bomb_is_judged_and_leaves_no_process_behind(images, tmp_path):
    result, agent_log, out = run(tmp_path, FORK_BOMB, 20)
    assert (result.status, result.success) == ("timeout", False), (result, agent_log[-2000:])
    forked = int(agent_log.split("FORKED ", 1)[1].split()[0])
    assert forked >= 200, agent_log[-2000:]
    killed = int((out / "container.log").read_text().split("killed ", 1)[1].split()[0])
    assert killed >= forked, agent_log[-2000:]  # every child (the agent itself got SIGTERM first)
