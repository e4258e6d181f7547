"""Shards with real containers: the oracle on the demo scenarios (a dataset with two splits, pass@2)
run as 3 shards at once into one output root, then `aggregate`, gives the same summary numbers
and the same set of results as one unsharded run; each shard resumes on its own; duplicates, a
missing shard and a fingerprint mismatch are refused with one line each."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dataset_support import CLI, REPO, oracle_config, stat_numbers, two_splits

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1500)]


def config(path: Path, data: Path, out: Path, concurrency: int) -> Path:
    return oracle_config(
        path, data, out, target='splits = "all"\n', run=f"pass_at = 2\nconcurrency = {concurrency}\n"
    )


def cli(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
    )


def finish(proc: subprocess.Popen, timeout: float = 1200) -> tuple[int, str]:
    stdout, stderr = proc.communicate(timeout=timeout)
    return proc.returncode, stdout + stderr


def numbers(summary: dict) -> dict:
    """Everything in summary.json that does not depend on timing."""

    def group(stats: dict) -> dict:
        return {
            **stat_numbers(stats),
            "pass_at_k_rate": stats["pass_at_k_rate"],
            "pass_hat_k_rate": stats["pass_hat_k_rate"],
        }

    return {
        "overall": group(summary["overall"]),
        "splits": {k: group(v) for k, v in summary["splits"].items()},
        "macro": summary["macro"]["value"],
        "micro": summary["micro"]["value"],
        "complete": summary["complete"],
        "missing_runs": summary["missing_runs"],
        "pass_at": summary["pass_at"],
    }


def result_set(out: Path) -> set[tuple]:
    rows = [
        json.loads(line)
        for run in ("run_1", "run_2")
        for line in (out / run / "results.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 18
    return {(r["split"], r["scenario_id"], r["run_index"], r["success"], r["status"]) for r in rows}


def refused(out: Path) -> str:
    proc = subprocess.run([*CLI, "aggregate", str(out)], capture_output=True, text=True)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    return lines[0]


def test_three_shards_aggregate_to_the_unsharded_run(images, tmp_path: Path):
    data = two_splits(tmp_path / "data")
    full, sharded = tmp_path / "full", tmp_path / "sharded"
    shard_config = config(tmp_path / "shard.toml", data, sharded, 1)
    shards = [cli("run-config", "--config", str(shard_config), "--shard", f"{i}/3") for i in (1, 2, 3)]
    outputs = [finish(p) for p in shards]
    for code, text in outputs:
        assert code == 0, text  # whole: pytest would cut a list of outputs short
    code, text = finish(cli("run-config", "--config", str(config(tmp_path / "full.toml", data, full, 3))))
    assert code == 0, text

    # Shards wrote only their own bookkeeping; scenario directories are where the unsharded run has them.
    assert not (sharded / "summary.json").exists() and not (sharded / "run_1" / "results.jsonl").exists()
    for i in (1, 2, 3):
        own = sharded / "shards" / f"{i}-of-3"
        assert {p.name for p in own.iterdir()} >= {
            "summary.json",
            "fingerprint.json",
            "runner.log",
            "run_1",
            "run_2",
        }
        assert len((own / "run_1" / "results.jsonl").read_text().splitlines()) == 3  # 9 scenarios / 3
    assert sorted(p.relative_to(sharded) for p in sharded.glob("run_*/*/*/result.json")) == sorted(
        p.relative_to(full) for p in full.glob("run_*/*/*/result.json")
    )

    # Each shard resumes on its own: nothing left to run.
    code, text = finish(cli("run-config", "--config", str(shard_config), "--shard", "2/3"))
    assert code == 0, text
    assert "0 runs to start, 6 already done" in (sharded / "shards" / "2-of-3" / "runner.log").read_text()

    spare = {name: tmp_path / name for name in ("missing", "dup", "setup")}
    for copy in spare.values():
        shutil.copytree(sharded, copy)
    code, text = finish(cli("aggregate", str(sharded)))
    assert code == 0, text
    assert "merged 3 shard(s)" in text
    merged = json.loads((sharded / "summary.json").read_text())
    assert numbers(merged) == numbers(json.loads((full / "summary.json").read_text()))
    assert numbers(merged)["overall"]["runs"] == 18 and merged["complete"] is True
    assert result_set(sharded) == result_set(full)
    assert (sharded / "index.html").is_file() and "demo_cab_order" in (sharded / "index.html").read_text()

    shutil.rmtree(spare["missing"] / "shards" / "3-of-3")
    assert "missing shard(s) 3/3 of 3" in refused(spare["missing"])

    victim = json.loads((spare["dup"] / "shards" / "1-of-3" / "run_1" / "run_config.json").read_text())[
        "scenarios"
    ][0]
    path = spare["dup"] / "shards" / "3-of-3" / "run_1" / "run_config.json"
    doc = json.loads(path.read_text())
    doc["scenarios"].append(victim)
    path.write_text(json.dumps(doc))
    assert "recorded by more than one shard" in refused(spare["dup"])

    path = spare["setup"] / "shards" / "2-of-3" / "fingerprint.json"
    doc = json.loads(path.read_text())
    doc["settings"]["image_id"] = "sha256:rebuilt"
    path.write_text(json.dumps(doc))
    assert "shards/2-of-3 was run with another setup" in refused(spare["setup"])
