"""run-dataset end to end in real podman with the oracle image: layout, streaming, summary, no
secret on disk, resume after a lost result, --retry of an infrastructure error, Ctrl-C.

Kept few and small: every container needs a few seconds to load ARE and the host has 2 cores.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from container_probe import daemon_status, output_dir_label, running
from ctrl_c import restore_ctrl_c
from dataset_support import DEMO, demo_split, oracle_dataset
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "gaia2_runner.cli"]
SECRET = "sk-test-SECRET123"


def cli(*args: str, timeout: float = 480) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
    )


def run_dataset(root: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return cli(
        "run-dataset",
        "--dataset-root",
        str(root),
        "--splits",
        "demo",
        "--image",
        ORACLE_IMAGE,
        "--output-dir",
        str(out),
        *extra,
    )


def results(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def result_json(out: Path, scenario_id: str) -> dict:
    return json.loads((out / "demo" / scenario_id / "result.json").read_text())


def test_demo_dataset_pass_at_2(images, tmp_path: Path):
    # Four demo scenarios at --concurrency 4: pass@k's bookkeeping is per scenario, and the demo job
    # and the leaderboard test run all of them.
    root = demo_split(tmp_path / "data", [p.stem for p in DEMO[:4]])
    ids = sorted(p.stem for p in (root / "demo").glob("*.json"))
    out = tmp_path / "out"
    proc = run_dataset(root, out, "--concurrency", "4", "--pass-at", "2", "--judge-api-key", SECRET)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    for index in (1, 2):
        run_dir = out / f"run_{index}"
        lines = results(run_dir)
        assert sorted(r["scenario_id"] for r in lines) == ids  # one line per scenario per run
        assert all(r["success"] is True and r["split"] == "demo" and r["run_index"] == index for r in lines)
        assert all((run_dir / "demo" / sid / "result.json").is_file() for sid in ids)
        config = json.loads((run_dir / "run_config.json").read_text())
        assert config["image"] == ORACLE_IMAGE and config["runner_version"]
        assert sorted(s["scenario_id"] for s in config["scenarios"]) == ids
        assert config["started_at"] and config["finished_at"]

    summary = json.loads((out / "summary.json").read_text())
    overall = summary["overall"]
    assert (overall["scenarios"], overall["runs"], overall["infra_errors"]) == (len(ids), 2 * len(ids), 0)
    assert overall["success_rate"]["value"] == 1.0 and overall["success_rate"]["std"] == 0.0
    assert overall["pass_at_k_rate"] == 1.0 and overall["pass_hat_k_rate"] == 1.0
    assert summary["macro"]["value"] == 1.0 and summary["micro"]["value"] == 1.0
    assert "pass@2" in proc.stdout and "100.0%" in proc.stdout
    total = 2 * len(ids)
    *_, head, where = proc.stdout.splitlines()  # the summary, then where the results are (≤ 80 columns)
    assert head.startswith(f"{total} runs: {total} pass, 0 fail, 0 error · success 100.0% · complete ·")
    assert where.startswith("results: ")
    # stderr is a pipe here: no bar, one plain line per finished run
    verdicts = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    assert len(verdicts) == total and all(" PASS demo/" in line for line in verdicts)
    assert {f"demo/{sid} (run {k})" for sid in ids for k in (1, 2)} == {
        line.split(" PASS ")[1].rsplit(" ", 1)[0] for line in verdicts
    }
    log = (out / "runner.log").read_text().splitlines()
    assert sum(" PASS demo/" in line for line in log) == total and "run started: " in log[0]
    assert log[-1].split(" ", 1)[1].startswith(f"run finished: {total} runs: {total} pass")

    leaks = [p for p in out.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert not leaks, f"secret written to {leaks}"


def test_resume_runs_only_what_has_no_result(images, tmp_path: Path):
    names = ["demo_calendar_add_event", "demo_contacts_update_phone", "demo_messaging_send"]
    root = demo_split(tmp_path / "data", names)
    out = tmp_path / "out"
    first = run_dataset(root, out, "--concurrency", "2")
    assert first.returncode == 0, first.stdout + first.stderr
    before = {n: result_json(out, n)["container_id"] for n in names}

    (out / "demo" / names[1] / "result.json").unlink()
    second = run_dataset(root, out, "--concurrency", "2")
    assert second.returncode == 0, second.stdout + second.stderr
    after = {n: result_json(out, n)["container_id"] for n in names}
    assert after[names[0]] == before[names[0]] and after[names[2]] == before[names[2]]
    assert after[names[1]] != before[names[1]] and after[names[1]]
    assert sorted(r["scenario_id"] for r in results(out)) == names  # still one line each


# The oracle fast-forwards (about a second per scenario): these tests need it to take real time.
REALTIME = ("--env", "GAIA2_ORACLE_REALTIME=1")


def kill_when_running(sandbox, scenario_dir: Path, proc: subprocess.Popen, limit_s: float = 120) -> None:
    """Kill the scenario's container once its daemon says it runs (its ENV event is 5 s of real time
    away): an infrastructure failure, not the agent's. Found by its output directory: another run of
    the same scenario may share this host."""
    label = output_dir_label(scenario_dir)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and proc.poll() is None:
        for box in running(sandbox, label):
            if daemon_status(sandbox, box.id) == "running":
                sandbox.driver.client.containers.get(box.id).kill()  # podman-only test
                return
        time.sleep(0.2)
    raise AssertionError(f"no container for {scenario_dir} appeared")


def test_retry_reruns_only_the_infra_error(sandbox, images, tmp_path: Path):
    names = ["demo_env_message_pickup", "demo_messaging_send"]  # pickup needs ~10 s
    root = demo_split(tmp_path / "data", names)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            *oracle_dataset(root, out, concurrency=2),
            "--splits",
            "demo",
            *REALTIME,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    kill_when_running(sandbox, out / "demo" / "demo_env_message_pickup", proc)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 1, stdout + stderr
    timed_out = result_json(out, "demo_env_message_pickup")
    assert timed_out["success"] is None and timed_out["status"] == "crashed"
    kept = result_json(out, "demo_messaging_send")
    assert kept["success"] is True

    plain = run_dataset(root, out, *REALTIME)  # without --retry the error is an outcome: nothing runs
    assert plain.returncode == 1
    assert result_json(out, "demo_env_message_pickup")["container_id"] == timed_out["container_id"]

    retried = run_dataset(root, out, "--retry", *REALTIME)
    assert retried.returncode == 0, retried.stdout + retried.stderr
    assert result_json(out, "demo_env_message_pickup")["success"] is True
    assert result_json(out, "demo_messaging_send")["container_id"] == kept["container_id"]
    assert {r["scenario_id"]: r["success"] for r in results(out)} == {
        "demo_env_message_pickup": True,
        "demo_messaging_send": True,
    }


def test_ctrl_c_keeps_results_and_removes_containers(images, sandbox, tmp_path: Path):
    root = demo_split(
        tmp_path / "data", ["demo_env_message_pickup", "demo_messaging_send", "demo_calendar_add_event"]
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            *oracle_dataset(root, out),
            "--splits",
            "demo",
            *REALTIME,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore_ctrl_c,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(out.glob("demo/*/result.json")):
        time.sleep(0.2)  # wait until the first scenario finished and the second one started
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    done = [json.loads(p.read_text()) for p in out.glob("demo/*/result.json")]
    assert any(r["success"] is True for r in done), stderr  # the finished one is kept
    assert len(done) == 2 and any(r["status"] == "interrupted" for r in done)  # third never started
    for r in done:
        assert r["container_id"] and not sandbox.container_exists(r["container_id"])
    assert len(results(out)) == 2
