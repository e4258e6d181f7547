"""What a rerun skips and what it runs again, from the result.json files on disk."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gaia2_runner.execution.jobs import all_jobs, collect_records, select
from gaia2_runner.output.layout import RESULTS_LOG_FILE, run_dirs
from gaia2_runner.output.results_log import ResultsLog, rewrite
from jsonl_file import read_records


@dataclass(frozen=True)
class Ref:  # same fields as targets.ScenarioRef
    scenario_id: str
    split: str | None
    path: Path


def write_result(job, **fields):
    job.result_dir.mkdir(parents=True, exist_ok=True)
    doc = {"scenario_id": job.ref.scenario_id, "success": None, "status": "error", **fields}
    job.result_path.write_text(json.dumps(doc))


def ids(jobs):
    return sorted(job.ref.scenario_id for job in jobs)


def make_jobs(tmp_path, names, split="search", pass_at=1):
    refs = [Ref(n, split, tmp_path / f"{n}.json") for n in names]
    return all_jobs(refs, run_dirs(tmp_path / "out", pass_at))


def test_layout(tmp_path: Path):
    assert run_dirs(tmp_path, 1) == [tmp_path]
    assert run_dirs(tmp_path, 3) == [tmp_path / "run_1", tmp_path / "run_2", tmp_path / "run_3"]
    job = make_jobs(tmp_path, ["a/b c"], pass_at=2)[1]
    assert job.run_index == 2
    # An id that is not a safe name gets its safe form plus a hash: "a/b c" and "a_b_c" never collide.
    assert job.result_path.parent.parent == tmp_path / "out" / "run_2" / "search"
    assert job.result_path.parent.name.startswith("a_b_c-") and job.result_path.name == "result.json"
    assert make_jobs(tmp_path, ["a_b_c"])[0].result_dir.name == "a_b_c"
    nosplit = make_jobs(tmp_path, ["x"], split=None)[0]
    assert nosplit.result_path == tmp_path / "out" / "x" / "result.json"


def populate(tmp_path):
    names = [
        "passed",
        "failed",
        "errored",
        "timed_out",
        "interrupted",
        "missing",
        "other_id",
        "corrupt",
        "bad_success",
    ]
    jobs = {job.ref.scenario_id: job for job in make_jobs(tmp_path, names)}
    write_result(jobs["passed"], success=True, status="completed")
    write_result(jobs["failed"], success=False, status="failed")
    write_result(jobs["errored"], success=None, status="error")
    write_result(jobs["timed_out"], success=None, status="timeout")
    write_result(jobs["interrupted"], success=None, status="interrupted")
    write_result(jobs["other_id"], success=True, scenario_id="someone_else")
    write_result(jobs["bad_success"], success="yes")
    jobs["corrupt"].result_dir.mkdir(parents=True, exist_ok=True)
    jobs["corrupt"].result_path.write_text('{"scenario_id": "corrupt", "succ')
    return list(jobs.values())


def test_resume_keeps_every_outcome_and_reruns_the_rest(tmp_path: Path):
    selection = select(populate(tmp_path), retry=False)
    assert ids(j for j, _ in selection.done) == ["errored", "failed", "passed", "timed_out"]
    assert ids(selection.todo) == ["bad_success", "corrupt", "interrupted", "missing", "other_id"]


def test_retry_adds_only_infra_errors(tmp_path: Path):
    plain = select(populate(tmp_path), retry=False)
    retried = select(populate(tmp_path), retry=True)
    extra = set(ids(retried.todo)) - set(ids(plain.todo))
    assert extra == {"errored", "timed_out"}  # success null; verdicts true/false are kept
    assert ids(j for j, _ in retried.done) == ["failed", "passed"]


def test_pass_at_runs_are_independent(tmp_path: Path):
    jobs = make_jobs(tmp_path, ["a", "b"], pass_at=2)
    write_result(jobs[0], success=True)  # a, run 1
    write_result(jobs[3], success=False)  # b, run 2
    todo = select(jobs, retry=False).todo
    assert [(j.ref.scenario_id, j.run_index) for j in todo] == [("b", 1), ("a", 2)]


def test_after_kill_9_only_unverified_runs_again_and_jsonl_is_rebuilt(tmp_path: Path):
    """A run killed with -9: three scenarios finished (result.json written), the fourth never
    did, and results.jsonl holds two good lines, a duplicate and a torn last line."""
    jobs = make_jobs(tmp_path, ["s1", "s2", "s3", "s4"])
    for job, ok in zip(jobs[:3], (True, False, None)):
        write_result(job, success=ok)
    results = jobs[0].run_dir / RESULTS_LOG_FILE
    log = ResultsLog(results)
    log.append({"scenario_id": "s1", "success": True, "split": "search", "run_index": 1})
    log.append({"scenario_id": "s1", "success": True, "split": "search", "run_index": 1})
    log.append({"scenario_id": "s2", "success": False, "split": "search", "run_index": 1})
    with open(results, "ab") as fh:
        fh.write(b'{"scenario_id": "s3", "success": nu')

    assert len(read_records(results)) == 3  # the torn line is skipped
    assert ids(select(jobs, retry=False).todo) == ["s4"]
    assert ids(select(jobs, retry=True).todo) == ["s3", "s4"]

    write_result(jobs[3], success=True)  # the rerun finishes s4
    ResultsLog(results).append({"scenario_id": "s4", "success": True})
    rewrite(results, collect_records(jobs))
    lines = read_records(results)
    assert [(r["scenario_id"], r["success"], r["split"], r["run_index"]) for r in lines] == [
        ("s1", True, "search", 1),
        ("s2", False, "search", 1),
        ("s3", None, "search", 1),
        ("s4", True, "search", 1),
    ]
