"""Two jobs into one --output-dir, as a user starts them: the second is refused within seconds
with one `error:` line naming the first, which finishes with all its results; a dry run meanwhile
is not refused (it takes no lock). Real podman, the oracle image, the demo scenarios.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaia2_runner.output.layout import JOB_LOCK_FILE
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "gaia2_runner.cli"]
ENV = {**os.environ, "COLUMNS": "200"}
RUNS = 3


def run_dataset(out: Path, *extra: str) -> list[str]:
    return [
        *CLI,
        "run-dataset",
        "--dataset-root",
        "examples/scenarios",
        "--limit",
        str(RUNS),
        "--concurrency",
        "1",
        "--image",
        ORACLE_IMAGE,
        "--output-dir",
        str(out),
        *extra,
    ]


def wait_for_lock(out: Path, pid: int, proc: subprocess.Popen, limit_s: float = 120) -> dict:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            record = json.loads((out / JOB_LOCK_FILE).read_text())
            if record.get("pid") == pid:
                return record
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"{out / JOB_LOCK_FILE} never named pid {pid}")


def test_a_second_job_into_the_same_output_dir_is_refused(images, tmp_path: Path):
    out = tmp_path / "out"
    first = subprocess.Popen(
        run_dataset(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=ENV
    )
    try:
        record = wait_for_lock(out, first.pid, first)
        assert record["command"].startswith("gaia2-runner run-dataset --dataset-root examples/scenarios")

        t0 = time.monotonic()
        second = subprocess.run(
            run_dataset(out), capture_output=True, text=True, cwd=REPO, env=ENV, timeout=120
        )
        took = time.monotonic() - t0
        assert first.poll() is None, (
            "the first job ended before the second was refused: the test proves nothing"
        )
        lines = second.stderr.strip().splitlines()
        assert second.returncode == 2 and len(lines) == 1, second.stdout + second.stderr
        assert lines[0] == (
            f"error: {out} is in use by another gaia2-runner job: pid {first.pid} on host "
            f"{record['host']}, started {record['started_at']}, command: {record['command']}: "
            "wait for it to finish, or choose another --output-dir"
        )
        assert took < 30, f"refused after {took:.1f}s"

        dry = subprocess.run(
            run_dataset(out, "--dry-run"), capture_output=True, text=True, cwd=REPO, env=ENV, timeout=120
        )
        assert dry.returncode == 0 and "runs would start" in dry.stdout, dry.stdout + dry.stderr
        assert json.loads((out / JOB_LOCK_FILE).read_text())["pid"] == first.pid  # untouched by either

        stdout, stderr = first.communicate(timeout=480)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, stdout + stderr
    summary = json.loads((out / "summary.json").read_text())
    assert (
        summary["overall"]["runs"] == RUNS and summary["overall"]["successes"] == RUNS and summary["complete"]
    )
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == RUNS and all(json.loads(line)["success"] is True for line in lines)
    assert not (out / JOB_LOCK_FILE).exists()  # released at the end
    log = (out / "runner.log").read_text()
    started = [line for line in log.splitlines() if " run started: " in line]
    assert len(started) == 1 and started[0].endswith(f"(pid {first.pid})"), (
        log
    )  # the refused job wrote nothing here
