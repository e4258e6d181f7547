"""`submit --slurm` against a real single-node SLURM cluster on this machine (scripts/setup-slurm.sh:
Debian's slurm-wlm and munge, controller and node on localhost): the oracle on the demo scenarios
(two splits) as 3 array tasks plus the dependent aggregate job gives the summary numbers and the
results of an unsharded run.
tests/unit/test_submit.py checks the scripts (`--dry-run`) and the refusals without SLURM."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from dataset_support import REPO, oracle_config, stat_numbers, two_splits
from dataset_support import run_cli as cli

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1500)]


def config(path: Path, data: Path, out: Path, concurrency: int = 1) -> Path:
    return oracle_config(path, data, out, run=f"concurrency = {concurrency}\n")


def numbers(summary: dict) -> dict:
    return {
        "overall": stat_numbers(summary["overall"]),
        "splits": {k: stat_numbers(v) for k, v in summary["splits"].items()},
        "macro": summary["macro"]["value"],
        "complete": summary["complete"],
        "pass_at": summary["pass_at"],
    }


def result_set(out: Path) -> set[tuple]:
    return {
        (r["split"], r["scenario_id"], r["success"], r["status"])
        for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())
    }


@pytest.fixture(scope="module")
def slurm():
    proc = subprocess.run(
        ["bash", str(REPO / "scripts" / "setup-slurm.sh")], capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr
    again = subprocess.run(
        ["bash", str(REPO / "scripts" / "setup-slurm.sh")], capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0 and "starting" not in again.stderr and "writing" not in again.stderr, (
        again.stderr
    )


def wait_for_jobs(ids: list[str], limit_s: float = 1200) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        queued = subprocess.run(
            ["squeue", "-h", "-j", ",".join(ids), "-o", "%i %T"], capture_output=True, text=True
        ).stdout.strip()
        if not queued:
            return
        time.sleep(2)
    pytest.fail(f"SLURM jobs {ids} still queued after {limit_s:g}s")


def test_slurm_array_then_aggregate_equals_an_unsharded_run(images, slurm, tmp_path: Path):
    data = two_splits(tmp_path / "data")
    sharded = tmp_path / "sharded"
    proc = cli(
        "submit",
        "--slurm",
        "--config",
        str(config(tmp_path / "x.toml", data, sharded)),
        "--shards",
        "3",
        "--time",
        "30:00",
        "--sbatch-arg=--cpus-per-task=1",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("submitted:"))
    array_id, aggregate_id = line.split()[3], line.split("aggregate job ")[1].split()[0]
    assert (
        f"squeue -j {array_id},{aggregate_id}" in proc.stdout
        and "gaia2-runner serve --output-dir" in proc.stdout
    )
    script = (sharded / "slurm" / "shards.sbatch").read_text()
    assert (
        "#SBATCH --array=0-2" in script
        and "#SBATCH --time=30:00" in script
        and '--shard "$shard/3"' in script
    )

    full = tmp_path / "full"
    unsharded = cli("run-config", "--config", str(config(tmp_path / "full.toml", data, full, 2)))
    assert unsharded.returncode == 0, unsharded.stdout + unsharded.stderr
    wait_for_jobs([array_id, aggregate_id])

    logs = sharded / "slurm" / "logs"
    aggregate_log = (logs / f"aggregate-{aggregate_id}.out").read_text()
    assert "merged 3 shard(s)" in aggregate_log, aggregate_log
    for task in range(3):
        text = (logs / f"shard-{array_id}_{task}.out").read_text()
        assert f"gaia2-runner shard {task + 1}/3 on" in text and "3 runs: 3 pass" in text, text
    merged = json.loads((sharded / "summary.json").read_text())
    assert numbers(merged) == numbers(json.loads((full / "summary.json").read_text()))
    assert merged["overall"]["runs"] == 9 and merged["complete"] is True
    assert result_set(sharded) == result_set(full) and len(result_set(full)) == 9
    assert (sharded / "index.html").is_file()
