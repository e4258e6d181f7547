"""Simulated generation time in a real container (daemon/clock/generation.py): a time-split scenario
("in 2 minutes, send Leo ...", ARE's tolerance -10/+25 s) solved by a scripted agent that thinks
(one model call the scripted provider answers after SLOW_S wall seconds), waits WAIT_S simulated
seconds (wait_for_notification: a jump, no wall time) and sends.

At --time-speed SPEED the model's SLOW_S wall seconds are SLOW_S simulated seconds with `measured`
(the clock holds during the call, then is charged its duration): the message lands on time. With
`off` the clock runs on during the call, SPEED x SLOW_S simulated seconds: the same decisions land
30 s late and ARE's judge rejects them. The relay's trace shows the call's wall and simulated times.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

ROOT = Path(__file__).resolve().parents[2]
TIME_SPLIT = ROOT / "tests" / "data" / "time_split_send_later.json"
HOST = "host.containers.internal"
START = 1727773200.0  # the scenario's start_time
DUE = 120.0  # the oracle sends 120 s after the task
SPEED, SLOW_S, WAIT_S = 4, 10, 110  # measured: 10 + 110 = 120 (+ overhead x 4); off: 40 + 110 = 150
MESSAGE = "The meeting room is free now, come over."
ANSWER = f'Two minutes later I sent Leo Martin: "{MESSAGE}"'

AGENT = r"""
import json, os, subprocess, urllib.request
PY = "/opt/gaia2/venv/bin/python"
request = urllib.request.Request(
    os.environ["GAIA2_AGENT_BASE_URL"] + "/v1/chat/completions",
    json.dumps({"model": "slow", "messages": [{"role": "user", "content": "when do I send it?"}]}).encode(),
    {"Content-Type": "application/json", "Authorization": "Bearer " + os.environ["GAIA2_AGENT_API_KEY"]})
print("MODEL", json.load(urllib.request.urlopen(request, timeout=120))["choices"][0]["message"]["content"], flush=True)
subprocess.run([PY, "-m", "gaia2_container.runtimes.call", "SystemApp__wait_for_notification",
                json.dumps({"timeout": int(os.environ["WAIT_S"])})], check=True, capture_output=True)
subprocess.run(["messages", "send-message", "--user-id", "user-leo-martin", "--content", os.environ["MESSAGE"]],
               check=True, capture_output=True)
subprocess.run([PY, "-m", "gaia2_container.runtimes.reply", os.environ["ANSWER"]], check=True, capture_output=True)
"""


@pytest.mark.parametrize(("mode", "on_time"), [("measured", True), ("off", False)])
def test_a_slow_model_is_judged_on_time_with_measured_and_late_with_off(
    images, sandbox, fake, tmp_path: Path, mode: str, on_time: bool
):
    fake.set_script([{"text": "In two minutes.", "delay_s": SLOW_S}])
    env = {
        "GAIA2_AGENT_COMMAND": f"python3 -c {shlex.quote(AGENT)}",
        "GAIA2_AGENT_PROVIDER": "openai",
        "GAIA2_AGENT_MODEL": "slow",
        "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}",
        "GAIA2_AGENT_API_KEY": "sk-sim-generation-e2e",
        "GAIA2_TIME_SPEED": str(SPEED),
        "WAIT_S": str(WAIT_S),
        "MESSAGE": MESSAGE,
        "ANSWER": ANSWER,
    }
    if mode != "measured":  # measured is the daemon's default: the runner never sends it
        env["GAIA2_SIM_GENERATION_TIME"] = mode
    result = run_scenario(TIME_SPLIT, ORACLE_IMAGE, tmp_path, sandbox=sandbox, extra_env=env, timeout=240)
    out = tmp_path / result.scenario_id
    agent_log = (out / "agent.log").read_text()
    assert result.status == "completed" and "MODEL In two minutes." in agent_log, (result.error, agent_log)

    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]
    [call] = [e for e in events if e["kind"] == "provider_call"]
    [relayed] = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    wall_s = relayed["latency_ms"] / 1000
    assert wall_s >= SLOW_S and relayed["sim_started_at"] == call["sim_started_at"]
    assert relayed["sim_duration_s"] == call["sim_duration_s"]
    account = result.sim_generation_time
    if on_time:  # the clock stood still, then was charged the call's wall duration: no speed-up
        assert account["mode"] == "measured" and account["calls_held"] == 1
        assert SLOW_S <= call["sim_duration_s"] <= wall_s + 1, call
        assert call["sim_duration_s"] == pytest.approx(account["advanced_s"], abs=0.01)  # each rounded to ms
    else:  # the clock ran on at SPEED
        assert account == {"mode": "off", "calls_held": 0, "held_s": 0.0, "advanced_s": 0.0}
        assert call["sim_duration_s"] >= SPEED * SLOW_S, call

    sent = next(e for e in events if e["kind"] == "tool_call" and e["function"] == "send_message")
    late_by = sent["sim_time"] - START - DUE
    print(
        f"{mode}: model call {wall_s:.2f} s wall, {call['sim_duration_s']} s simulated; sent {late_by:+.1f} s off"
    )
    assert (-10 <= late_by <= 25) is on_time, late_by  # ARE's default tolerance around the oracle's time
    assert result.success is on_time, result.failure_reasons
