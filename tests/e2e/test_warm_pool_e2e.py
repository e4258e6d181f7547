"""The warm pool end to end (sandbox/warm_pool.py), on each engine: spares serve one scenario
each with the same verdicts as cold starts, the job leaves none behind, and a spare takes no second
scenario nor one from anyone without the runner's token.

The kill -9 case (a dead runner's spares end themselves) is in tests/redteam/test_redteam_orphans.py,
with the other tests that leave a dead runner's containers.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from dataset_support import DEMO, demo_split, oracle_dataset
from gaia2_contract import constants as contract
from gaia2_contract import routes
from gaia2_runner.sandbox.ownership import LABEL_PID, LABEL_SCENARIO_ID
from gaia2_runner.sandbox.warm_pool import WARM_SCENARIO_LABEL
from redteam_targets import assign_by_runner, detached_spare, spare_status

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
NAMES = [p.stem for p in DEMO[:3]]
SPARE = f"{LABEL_SCENARIO_ID}={WARM_SCENARIO_LABEL}"


def run_job(data: Path, out: Path, *extra: str) -> tuple[int, list[dict]]:
    """One oracle job at concurrency 1: the runner's pid (its containers' owner label) and results."""
    proc = subprocess.Popen(
        [*oracle_dataset(data, out, concurrency=1), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=REPO,
    )
    output, _ = proc.communicate(timeout=480)
    assert proc.returncode == 0, output
    lines = (out / "results.jsonl").read_text().splitlines()
    return proc.pid, [json.loads(line) for line in lines]


@pytest.mark.both_engines
def test_spares_serve_one_scenario_each_and_the_job_leaves_none(engine, images, sandbox, tmp_path):
    data = demo_split(tmp_path / "data", NAMES)
    pid, warm = run_job(data, tmp_path / "warm")  # the default
    _, cold = run_job(data, tmp_path / "cold", "--no-warm-pool")

    def verdicts(results: list[dict]) -> dict[str, tuple]:
        return {r["scenario_id"]: (r["success"], r["status"], r["agent_actions"]) for r in results}

    assert verdicts(warm) == verdicts(cold) and all(r["success"] is True for r in warm)
    assert [r["warm_start"] for r in cold] == [False, False, False]
    # One run at a time: the first starts cold, its spare is ready for the next (and so on).
    flags = [r["warm_start"] for r in sorted(warm, key=lambda r: r["started_at"])]
    assert flags[0] is False and True in flags, flags
    assert len({r["container_id"] for r in warm}) == len(warm)  # never a container twice
    for r in warm:  # a warm run's phases are still all measured
        assert all(r["timings"][phase] > 0 for phase in ("start_s", "ready_s", "run_s", "collect_s")), r
    # The spare made for a run that never came (none is queued after the last) is gone with the job.
    assert sandbox.list_labelled(f"{LABEL_PID}={pid}") == []


@pytest.mark.both_engines
def test_a_spare_takes_one_scenario_and_only_from_the_runner(engine, images, sandbox, tmp_path):
    """A spare made by hand through the runner's own pool: assigned without the token it refuses;
    with it, once; its run then goes as a cold one does."""
    scenario = DEMO[0].read_bytes()
    pool, first, spare = detached_spare(sandbox, scenario)  # the spare stays for this test alone
    try:
        assert first.warm is False  # nothing was warm yet
        url = spare.base_url + routes.ASSIGN
        body = {"env": {contract.ENV_SCENARIO_TIMEOUT: "60", contract.ENV_DEADLINE: "700"}}
        with httpx.Client(trust_env=False, timeout=5) as http:
            assert post_until_up(http, url, body, {}).status_code == 401
            assert http.post(url, json=body, headers={"Authorization": "Bearer guess"}).status_code == 401
        assert spare_status(spare) == "starting"  # still waiting for a scenario
        assert assign_by_runner(spare, scenario) == 202
        assert assign_by_runner(spare, scenario) == 409  # once
        deadline = time.monotonic() + 120
        while spare_status(spare) != "ok":
            assert time.monotonic() < deadline and spare.is_running(), spare_status(spare)
            time.sleep(0.2)
    finally:
        pool.close()
        first.cleanup(timeout=0)
        spare.cleanup(timeout=0)


def post_until_up(http: httpx.Client, url: str, body: dict, headers: dict) -> httpx.Response:
    deadline = time.monotonic() + 60
    while True:
        try:
            return http.post(url, json=body, headers=headers)
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the spare's adapter never answered"
            time.sleep(0.1)
