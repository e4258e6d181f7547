"""A podman API outage mid-run costs time, not results: the service is stopped while a scenario
runs and started again a few seconds later; queued runs wait for it, the run in flight keeps its
verdict and its artifacts, and nothing prints a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaia2_runner.config import ORACLE_IMAGE
from gaia2_runner.sandbox.service import ping

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "scenarios"
NAMES = ["demo_env_message_pickup", "demo_calendar_add_event", "demo_messaging_send"]  # pickup runs ~8 s
OUTAGE_S = 15.0  # longer than what is left of pickup's run: its collection must meet the outage


def start_service(sock: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("CONTAINER_HOST", "CONTAINER_CONNECTION")}
    proc = subprocess.Popen([shutil.which("podman"), "system", "service", "--time=0", f"unix://{sock}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while not ping(f"unix://{sock}", timeout=1.0):
        assert time.monotonic() < deadline and proc.poll() is None, "the private podman service did not start"
        time.sleep(0.2)
    return proc


def stop_service(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def test_podman_outage_mid_run_loses_nothing(images, tmp_path: Path) -> None:
    data = tmp_path / "data" / "demo"
    data.mkdir(parents=True)
    for order, name in enumerate(NAMES):  # files run in name order: pickup first, at concurrency 1
        shutil.copy(DEMO / f"{name}.json", data / f"{order}_{name}.json")
    sock = tmp_path / "podman.sock"
    service = start_service(sock)
    out = tmp_path / "out"
    runner = subprocess.Popen(
        [sys.executable, "-m", "gaia2_runner.cli", "run-dataset", "--dataset-root", str(tmp_path / "data"),
         "--image", ORACLE_IMAGE, "--output-dir", str(out), "--concurrency", "1", "--podman-wait", "120",
         "--env", "GAIA2_ORACLE_REALTIME=1"],  # the oracle takes real time: pickup runs ~8 s
        cwd=REPO, env={**os.environ, "CONTAINER_HOST": f"unix://{sock}"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "demo" / "demo_env_message_pickup" / "daemon.log").exists() and \
                not list(out.glob("demo/*/result.json")):
            # The first scenario (pickup) is running once its container answers: wait for its start.
            if subprocess.run(["podman", "ps", "-q", "--filter", "label=gaia2.scenario_id=demo_env_message_pickup"],
                              capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                   if k != "CONTAINER_HOST"}).stdout.strip():
                break
            assert time.monotonic() < deadline and runner.poll() is None
            time.sleep(0.2)
        time.sleep(3.0)  # loaded and running
        stop_service(service)  # outage: the in-flight run must keep its verdict, the queue must wait
        time.sleep(OUTAGE_S)
        service = start_service(sock)
        stdout, stderr = runner.communicate(timeout=400)
    finally:
        if runner.poll() is None:
            runner.kill()
        stop_service(service)
    assert "Traceback" not in stdout + stderr
    assert runner.returncode == 0, stdout + stderr
    assert "podman API unreachable" in stderr  # said once, not a traceback per run
    records = {r["scenario_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert {n: records[n]["success"] for n in NAMES} == dict.fromkeys(NAMES, True)
    assert not any(r["artifacts_lost"] for r in records.values())
    for name in NAMES:  # every run's artifacts were collected, the in-flight one after the outage
        assert (out / "demo" / name / "events.jsonl").is_file() and (out / "demo" / name / "container.log").is_file()


def test_an_unreachable_container_host_is_an_error(tmp_path: Path) -> None:
    scenario = DEMO / "demo_calendar_add_event.json"
    proc = subprocess.run([sys.executable, "-m", "gaia2_runner.cli", "run", "--scenario", str(scenario),
                           "--image", ORACLE_IMAGE, "--output-dir", str(tmp_path / "out")],
                          cwd=REPO, env={**os.environ, "CONTAINER_HOST": f"unix://{tmp_path}/dead.sock"},
                          capture_output=True, text=True, timeout=60)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "fix CONTAINER_HOST" in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()
