"""Red team, warm pool: a hostile agent in a warm-started container cannot give a scenario to its
own container again, nor reach another run's spare (even with that spare's token leaked), and the
spare it aimed at still takes its scenario from the runner alone.

The victim is a spare of another pool on the same engine (as another job's would be), waiting for
its scenario while the attack goes. The attacker (tests/support/redteam_attacker.py) runs twice
with the same spec through a pool of its own: the first run starts cold and makes the spare the
second run takes, so the second attack comes from a warm-started container.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.container_env import container_env
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from redteam_targets import assign_by_runner, describe, host_ipv4_addresses, spare_status, wait_for_spare

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

SUPPORT = Path(__file__).resolve().parents[1] / "support"
DEMOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
TASK = DEMOS / "demo_calendar_add_event.json"  # what the attacker solves after its attack
ATTACKER = (SUPPORT / "redteam_attacker.py").read_text()
MARK = "REDTEAM-WARM-INJECTED-51c9"
ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)


@pytest.mark.both_engines
def test_a_warm_started_hostile_agent_reaches_no_spare_and_assigns_nothing(engine, images, sandbox, tmp_path):
    scenario = TASK.read_bytes()
    # The victim: another pool's spare (made for the next run of a plain oracle job).
    sandbox.use_warm_pool(1, lambda: 1)
    try:
        env = container_env(None, scenario_timeout=120, runtime="oracle")
        first = sandbox.run_scenario_container(ORACLE_IMAGE, scenario, env, "victim_first", warm=True)
        spare = wait_for_spare(sandbox)
    finally:
        victim_pool, sandbox.pool = sandbox.pool, None  # its spare waits while the attacks go
    first.cleanup(timeout=0)
    try:
        victims = [describe(sandbox, spare.id, "victim_spare", spare=True)]
        attacker_env = {
            "GAIA2_AGENT_COMMAND": f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(ATTACKER)}",
            "REDTEAM_TARGETS": json.dumps(victims),
            "REDTEAM_HOST_ADDRS": json.dumps(host_ipv4_addresses()),
            "REDTEAM_MARK": MARK,
            "REDTEAM_ANSWER": ANSWER,
        }
        sandbox.use_warm_pool(1, lambda: 1)  # the attacker's own job's pool
        try:
            runs = [
                run_scenario(
                    TASK, ORACLE_IMAGE, tmp_path / f"attack{n}", sandbox=sandbox, extra_env=attacker_env
                )
                for n in (1, 2)
            ]
        finally:
            sandbox.close_warm_pool()
        assert [r.warm_start for r in runs] == [False, True]

        for run in runs:
            out = tmp_path / f"attack{runs.index(run) + 1}" / run.scenario_id
            agent_log = (out / "agent.log").read_text()
            lines = [line for line in agent_log.splitlines() if line.startswith("REDTEAM ")]
            assert len(lines) == 1, agent_log[-3000:]
            report = json.loads(lines[0][len("REDTEAM ") :])
            # No address of the spare answered: not its status, not an assignment.
            tried = report["network"]
            assert len(tried) > 254 and all(t["connect"] != "open" or not t.get("assign") for t in tried)
            answered = [
                t
                for t in tried
                if t.get("reached")
                or (t.get("assign") and t["assign"][0] is not None)
                or (t.get("status") and (t["status"][0] in (200, 401) or "adapter token" in t["status"][1]))
            ]
            assert answered == [], answered
            # Its own daemon (warm-started or not) takes no assignment from the agent.
            for attempt in ("no_token", "guessed_token"):
                assert report["own"][attempt]["assign"][0] == 401, report["own"][attempt]
            assert report["own"]["secret_env"] == []
            assert (run.status, run.success) == ("completed", True), (run.error, agent_log[-2000:])
            assert MARK not in (out / "events.jsonl").read_text()

        # The spare is as it was: still waiting, and it takes its scenario from the runner, once.
        assert spare.is_running() and spare_status(spare) == "starting"
        assert assign_by_runner(spare, scenario) == 202
        assert assign_by_runner(spare, scenario) == 409
    finally:
        victim_pool.close()
        spare.cleanup(timeout=0)
