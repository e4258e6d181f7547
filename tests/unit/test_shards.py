"""--shard I/N and `aggregate`, without podman: the partition, the flag, and every refusal of the
merge on shard trees written by the runner's own writers (result.json, run_config.json,
fingerprint.json) exactly as a shard leaves them. tests/e2e/test_shards_e2e.py does it with containers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dataset_support import CLI, DEMO, two_splits
from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.aggregate import aggregate
from gaia2_runner.execution.plan import plan_run
from gaia2_runner.execution.shards import shard_refs
from gaia2_runner.output.fingerprint import fingerprint, write_fingerprint
from gaia2_runner.output.layout import shard_dir
from gaia2_runner.output.result import ScenarioResult, write_result
from gaia2_runner.output.run_record import run_record, write_run_record
from gaia2_runner.output.summary import summarize, write_summary
from gaia2_runner.targets import ScenarioRef


def refs_named(names: list[tuple[str, str]]) -> list[ScenarioRef]:
    return [ScenarioRef(sid, split, Path(f"{sid}.json")) for split, sid in names]


def test_partition_is_balanced_disjoint_complete_and_order_free():
    refs = refs_named([(s, f"id{i:03d}") for s in ("b", "a") for i in range(50)])
    for count in (1, 3, 7, 100, 10_000):
        slices = [shard_refs(refs, (i, count)) for i in range(1, count + 1)]
        sizes = [len(s) for s in slices]
        assert max(sizes) - min(sizes) <= 1 and sum(sizes) == len(refs)
        keys = [(r.split, r.scenario_id) for s in slices for r in s]
        assert len(set(keys)) == len(refs)
        # The same plan listed in another order gives the same slices.
        again = [shard_refs(list(reversed(refs)), (i, count)) for i in range(1, count + 1)]
        assert [{(r.split, r.scenario_id) for r in s} for s in again] == [
            {(r.split, r.scenario_id) for r in s} for s in slices
        ]
    # Round-robin over sorted (split, id): each shard gets both splits.
    assert {r.split for r in shard_refs(refs, (2, 3))} == {"a", "b"}


@pytest.mark.parametrize("value", ["0/3", "4/3", "3", "a/b", "1/0", "1/10001", "-1/2", "1/2/3", " ", "1.5/2"])
def test_bad_shard_is_one_line_naming_the_key(tmp_path, value):
    config_file = tmp_path / "x.toml"
    config_file.write_text(
        f'[target]\nscenario = "{DEMO[0]}"\n[run]\noutput_dir = "out"\nshard = "{value}"\n'
    )
    with pytest.raises(Gaia2Error) as caught:
        apply_overrides(load_config(config_file), {})
    message = caught.value.message
    assert "[run] shard" in message and "I/N" in message and "\n" not in message
    proc = subprocess.run(
        [*CLI, "run-config", "--config", str(config_file), "--dry-run"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert (
        proc.returncode == 2
        and proc.stderr.strip().startswith("error:")
        and len(proc.stderr.splitlines()) == 1
    )
    proc = subprocess.run(
        [*CLI, "run-dataset", "--scenario", str(DEMO[0]), "--output-dir", "o", "--shard", value],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and "--shard" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_a_plan_keeps_scenarios_where_an_unsharded_run_puts_them(tmp_path):
    root = two_splits(tmp_path / "data")
    config = apply_overrides(
        load_config(None),
        {"dataset_root": str(root), "output_dir": str(tmp_path / "out"), "pass_at": 2, "shard": "2/3"},
    )
    plan = plan_run(config)
    full = plan_run(apply_overrides(config, {"shard": "1/1"}))
    assert len(plan.refs) == 3 and len(full.refs) == 9
    assert plan.run_dirs == full.run_dirs == [tmp_path / "out" / "run_1", tmp_path / "out" / "run_2"]
    assert plan.state_dir == tmp_path / "out" / "shards" / "2-of-3"
    assert plan.record_dirs == [plan.state_dir / "run_1", plan.state_dir / "run_2"]
    # Both runs of each of its scenarios are in this shard.
    assert sorted((j.ref.scenario_id, j.run_index) for j in plan.jobs()) == sorted(
        (r.scenario_id, k) for r in plan.refs for k in (1, 2)
    )


def write_shard(
    root: Path, data: Path, index: int, count: int, pass_at: int = 1, timeout: float = 600, skip: int = 0
) -> None:
    """What a finished shard leaves (dataset_run.py's writers), every run a pass but the last `skip`."""
    overrides = {
        "dataset_root": str(data),
        "output_dir": str(root),
        "pass_at": pass_at,
        "shard": f"{index}/{count}",
        "timeout": timeout,
    }
    plan = plan_run(apply_overrides(load_config(None), overrides))
    jobs = plan.jobs()
    for job in jobs[: len(jobs) - skip]:
        result = ScenarioResult(scenario_id=job.ref.scenario_id, status="completed", success=True)
        result.finish()
        write_result(result, job.result_dir)
    for run_index, (run_dir, record_dir) in enumerate(zip(plan.run_dirs, plan.record_dirs), 1):
        listed = [(j.ref.scenario_id, j.ref.split, j.ref.path) for j in jobs if j.run_dir == run_dir]
        write_run_record(
            record_dir,
            run_record(
                plan.config,
                command="run-config",
                run_index=run_index,
                pass_at=pass_at,
                retry=False,
                started_at="s",
                finished_at="f",
                scenarios=listed,
                shard=plan.shard_info,
            ),
        )
    write_fingerprint(
        plan.state_dir,
        fingerprint(
            plan.config,
            image_id="sha256:abc",
            runtime=None,
            scenarios=[(r.split, r.scenario_id, r.sha256) for r in plan.refs],
        ),
    )
    write_summary(
        summarize([], pass_at, 1.0), plan.state_dir / "summary.json", {"image": plan.config.agent.image}
    )


def test_aggregate_merges_into_the_unsharded_layout(tmp_path):
    data, out = two_splits(tmp_path / "data"), tmp_path / "out"
    for index in (1, 2, 3):
        write_shard(out, data, index, 3, pass_at=2)
    merged = aggregate(out)
    assert merged.outcome.summary.complete and merged.outcome.summary.overall.runs == 18
    for run in ("run_1", "run_2"):
        lines = [json.loads(x) for x in (out / run / "results.jsonl").read_text().splitlines()]
        assert len(lines) == 9 and {r["split"] for r in lines} == {"alpha", "beta"}
        assert json.loads((out / run / "run_config.json").read_text())["scenario_count"] == 9
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["pass_at_k"] == 9 and summary["complete"] is True
    assert len(json.loads((out / "fingerprint.json").read_text())["scenarios"]) == 9


def refused(out: Path, *extra: str) -> str:
    proc = subprocess.run([*CLI, "aggregate", str(out), *extra], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert not (out / "summary.json").exists()  # nothing written when refused
    return lines[0]


def test_aggregate_refuses_gaps_duplicates_and_other_setups(tmp_path):
    data = two_splits(tmp_path / "data")
    out = tmp_path / "missing"
    write_shard(out, data, 1, 3)
    write_shard(out, data, 3, 3)
    assert "missing shard(s) 2/3 of 3" in refused(out)
    proc = subprocess.run([*CLI, "aggregate", str(out), "--allow-partial"], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert (
        summary["complete"] is False and summary["missing_runs"] == 3 and summary["missing_shards"] == ["2/3"]
    )

    out = tmp_path / "gap"
    for index in (1, 2, 3):
        write_shard(out, data, index, 3, skip=1 if index == 2 else 0)
    assert "1 run(s) without a result" in refused(out) and "shards/2-of-3" in refused(out)

    out = tmp_path / "dup"
    for index in (1, 2, 3):
        write_shard(out, data, index, 3)
    first = json.loads((shard_dir(out, (1, 3)) / "run_config.json").read_text())["scenarios"][0]
    path = shard_dir(out, (2, 3)) / "run_config.json"
    doc = json.loads(path.read_text())
    doc["scenarios"].append(first)
    path.write_text(json.dumps(doc))
    line = refused(out)
    assert "recorded by more than one shard" in line and first["scenario_id"] in line

    out = tmp_path / "mixed"
    for index in (1, 2, 3):
        write_shard(out, data, index, 3)
    write_shard(out, data, 1, 2)
    assert "different plans or partitions" in refused(out)

    out = tmp_path / "setup"
    for index in (1, 2, 3):
        write_shard(out, data, index, 3, timeout=600 if index != 2 else 900)
    line = refused(out)
    assert "shards/2-of-3 was run with another setup" in line and "timeout 600.0 -> 900.0" in line

    assert "no shard outputs" in refused(tmp_path / "data")

    out = tmp_path / "damaged"
    for index in (1, 2):
        write_shard(out, data, index, 2)
    path = shard_dir(out, (2, 2)) / "run_config.json"
    doc = json.loads(path.read_text())
    doc["scenarios"][0]["split"] = 5
    doc["pass_at"] = "many"
    path.write_text(json.dumps(doc))
    assert "shards/2-of-2: no readable run_config.json" in refused(out)
