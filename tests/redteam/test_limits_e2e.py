"""Limits, end to end: real containers, hostile agents (GAIA2_AGENT_COMMAND in the oracle image).

- One agent allocates past the memory limit, one fills its $HOME, while the oracle solves a third
  scenario beside them: the two end judged (a failure) with the limit named, the oracle passes.
- An agent printing 1.5 GB: the runner (a child process, the CLI as a user types it, with limits
  from flags) stays under a fixed peak RSS and agent.log keeps its cap and a marker line.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gaia2_runner.config.limits import ContainerLimits, GiB, MiB
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from runner_rss import PRINTER, python_command, run_cli

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(900)]

SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
CALENDAR = SCENARIOS / "demo_calendar_add_event.json"
CONTACTS = SCENARIOS / "demo_contacts_update_phone.json"
MESSAGING = SCENARIOS / "demo_messaging_send.json"
AGENT_LOG_CAP = 4 << 20  # containers/gaia2_container/daemon/agent/output_caps.py AGENT_LOG_MAX_BYTES
RUNNER_RSS_BOUND = 400 * MiB  # the runner's peak, whatever the agent prints (3 GB before the caps)

HOG = """
import os
for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):  # cgroup v2, v1
    if os.path.exists(path):
        print("LIMIT", open(path).read().strip(), flush=True)
held = []
while True:
    held.append(bytearray(64 << 20))  # zero-filled: every page is touched
"""
FILLER = """
import os
home = os.environ["HOME"]
written = 0
try:
    with open(os.path.join(home, "fill"), "wb") as out:
        while True:
            out.write(b"x" * (1 << 20)); out.flush(); written += 1 << 20
except OSError as exc:
    print("FULL", written, exc.errno, flush=True)
raise SystemExit(3)
"""


@pytest.mark.both_engines
def test_memory_and_disk_hogs_end_with_their_limit_while_a_parallel_scenario_passes(
    images, sandbox, tmp_path
):
    limits = ContainerLimits.of(memory="2560m", disk="256m")
    runs = {"hog": (CALENDAR, HOG), "filler": (CONTACTS, FILLER), "oracle": (MESSAGING, None)}

    def one(name: str):
        scenario, script = runs[name]
        env = {"GAIA2_AGENT_COMMAND": python_command(script)} if script else None
        return run_scenario(
            scenario,
            ORACLE_IMAGE,
            tmp_path / name,
            extra_env=env,
            timeout=120,
            sandbox=sandbox,
            limits=limits,
        )

    with ThreadPoolExecutor(3) as pool:
        results = dict(zip(runs, pool.map(one, runs)))
    logs = {name: (tmp_path / name / r.scenario_id / "agent.log").read_text() for name, r in results.items()}

    hog = results["hog"]
    assert (hog.status, hog.success) == ("agent_exit", False), (hog, logs["hog"][-2000:])
    assert f"LIMIT {2560 * MiB}" in logs["hog"]
    assert "the agent exceeded the memory limit (2.5 GiB)" in json.dumps(hog.to_dict()), hog
    filler = results["filler"]
    assert (filler.status, filler.success) == ("agent_exit", False), (filler, logs["filler"][-2000:])
    written = int(logs["filler"].split("FULL ", 1)[1].split()[0])
    assert 200 * MiB <= written <= 256 * MiB, logs["filler"]
    assert "the agent filled its writable space: $HOME (256 MiB) full" in json.dumps(filler.to_dict()), filler
    oracle = results["oracle"]
    assert (oracle.status, oracle.success) == ("completed", True), oracle


def test_a_runner_stays_small_while_the_agent_prints_1_5_gb(images, tmp_path):
    out = tmp_path / "out"
    proc, peak = run_cli(
        [
            "run",
            "--agent",
            "oracle",
            "--scenario",
            str(CALENDAR),
            "--output-dir",
            str(out),
            "--no-preflight",
            "--timeout",
            "300",
            "--memory",
            "3g",
            "--disk",
            "512m",
            "--env",
            f"GAIA2_AGENT_COMMAND={python_command(PRINTER.format(mb=1500))}",
        ],
        tmp_path / "rss",
    )
    [result_file] = out.glob("**/result.json")
    result = json.loads(result_file.read_text())
    assert result["status"] == "agent_exit" and result["success"] is False, (result, proc.stderr[-2000:])
    agent_log = result_file.parent / "agent.log"
    size = agent_log.stat().st_size
    assert AGENT_LOG_CAP <= size <= AGENT_LOG_CAP + 4096, size
    tail = agent_log.read_bytes()[-400:].decode()
    assert (
        "[gaia2] agent.log truncated" in tail and f"{1500 * MiB - AGENT_LOG_CAP} bytes discarded" in tail
    ), tail
    assert peak < RUNNER_RSS_BOUND, f"runner peak RSS {peak / MiB:.0f} MiB"
    assert peak < 1 * GiB  # today's code: about twice what the agent printed
