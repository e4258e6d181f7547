"""A live runner is never taken for gone, however slowly its engine answers (sandbox/keepalive.py).

The daemon ends a run when its runner says nothing for the idle timeout; the runner's polling loop
also asks the engine whether the container runs, and a busy engine (an image build holding its
storage lock) once held that loop past the timeout: live runs ended as "runner gone". Here every
engine liveness answer takes longer than the whole idle timeout, on each engine.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gaia2_contract import constants as contract
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.both_engines, pytest.mark.timeout(600)]

DEMOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
IDLE_S = 3  # the daemon's idle timeout for this run
ENGINE_S = 2 * IDLE_S  # how long each "is it running?" takes the engine here
ENV_DELAY_S = 4 * ENGINE_S  # the oracle waits this long for its ENV event: several slow checks


def test_a_slow_engine_never_makes_a_live_runner_look_gone(engine, images, sandbox, tmp_path, monkeypatch):
    doc = json.loads((DEMOS / "demo_env_message_pickup.json").read_text())
    for event in doc["events"]:
        if event["event_type"] == "ENV":
            event["event_relative_time"] = ENV_DELAY_S
    scenario = tmp_path / "slow_engine.json"
    scenario.write_text(json.dumps(doc))
    monkeypatch.setenv(contract.ENV_IDLE_TIMEOUT, str(IDLE_S))
    checks: list[float] = []
    original = ContainerHandle.is_running

    def slow_is_running(self) -> bool:
        time.sleep(ENGINE_S)
        checks.append(ENGINE_S)
        return original(self)

    monkeypatch.setattr(ContainerHandle, "is_running", slow_is_running)
    result = run_scenario(
        scenario,
        ORACLE_IMAGE,
        tmp_path / "out",
        sandbox=sandbox,
        extra_env={"GAIA2_ORACLE_REALTIME": "1"},  # the oracle waits in real time for the event
    )
    assert len(checks) >= 2, checks  # the polling loop really waited on the engine past the timeout
    assert (result.status, result.success) == ("completed", True), result.error
