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
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from redteam_targets import assign_by_runner, attacker_env, describe, detached_spare, spare_status

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

DEMOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
TASK = DEMOS / "demo_calendar_add_event.json"  # what the attacker solves after its attack
MARK = "REDTEAM-WARM-INJECTED-51c9"


@pytest.mark.both_engines
def test_a_warm_started_hostile_agent_reaches_no_spare_and_assigns_nothing(engine, images, sandbox, tmp_path):
    scenario = TASK.read_bytes()
    # The victim: another pool's spare (made for the next run of a plain oracle job).
    victim_pool, first, spare = detached_spare(sandbox, scenario)
    first.cleanup(timeout=0)
    try:
        env = attacker_env([describe(sandbox, spare.id, "victim_spare", spare=True)], MARK)
        sandbox.use_warm_pool(1, lambda: 1)  # the attacker's own job's pool
        try:
            runs = [
                run_scenario(TASK, ORACLE_IMAGE, tmp_path / f"attack{n}", sandbox=sandbox, extra_env=env)
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
