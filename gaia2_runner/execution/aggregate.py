"""`aggregate OUT_ROOT`: merge the shards of one plan into the root's results, as one run would.

Each shard left `shards/I-of-N/` (fingerprint.json, summary.json, run_config.json per repetition
listing its scenarios and the plan it belongs to); its scenario directories sit where an unsharded
run puts them. The merge trusts result.json, as resume does, and writes what an unsharded run
writes: results.jsonl and run_config.json per run directory, summary.json and fingerprint.json at
the root (the viewer then works unchanged). It refuses, before writing anything:

- shards whose fingerprints differ (another image, model, judge, scenario file…);
- shards of different plans or partitions (another N, another scenario set, another pass_at);
- a run claimed by two shards (duplicates);
- gaps: missing shards, or listed runs without a result, unless `allow_partial`, which merges
  what is there and leaves the summary incomplete (missing runs count against the rate).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.dataset_run import DatasetOutcome
from gaia2_runner.execution.jobs import Job, collect_records
from gaia2_runner.execution.shards import scenario_key
from gaia2_runner.output.dir_lock import lock_output_dir
from gaia2_runner.output.fingerprint import differences, read_fingerprint, write_fingerprint
from gaia2_runner.output.layout import (
    RESULTS_LOG_FILE,
    RUN_CONFIG_FILE,
    SUMMARY_FILE,
    run_dir_name,
    run_dirs,
    shard_dir_name,
    shard_dirs,
)
from gaia2_runner.output.read.run_files import json_object
from gaia2_runner.output.read.safe_io import RUN_CONFIG_CAP, output_root
from gaia2_runner.output.results_log import rewrite
from gaia2_runner.output.run_record import write_run_record
from gaia2_runner.output.summary import summarize, write_summary
from gaia2_runner.targets import ScenarioRef
from gaia2_runner.text import now_iso

MAX_LISTED = 5  # items named in one error line before "and N more"


@dataclass
class ShardOutput:
    """What one shard directory says about itself."""

    index: int
    count: int
    path: Path
    name: str
    fingerprint: dict[str, Any] | None
    records: list[dict[str, Any]]  # run_config.json per repetition
    summary: dict[str, Any] | None

    @property
    def identity(self) -> dict[str, Any]:
        return (self.records[0].get("shard") or {}) if self.records else {}


def _count(value: Any) -> int:
    """A pass_at read from a shard's files: a sane positive integer, else 1."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 100 else 1


def _listing_ok(scenarios: Any) -> bool:
    """A run_config.json scenario list as the runner writes it (ids and splits are strings)."""
    return isinstance(scenarios, list) and all(
        isinstance(item, dict)
        and isinstance(item.get("scenario_id"), str)
        and (item.get("split") is None or isinstance(item.get("split"), str))
        for item in scenarios
    )


def _listing(items: list[str]) -> str:
    more = f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else ""
    return ", ".join(items[:MAX_LISTED]) + more


def read_shards(root: Path) -> list[ShardOutput]:
    found = shard_dirs(root)
    if not found:
        raise Gaia2Error(
            f"{root}: no shard outputs under {root / 'shards'}: run the shards first "
            "(run-config --config x.toml --shard I/N)"
        )
    shards: list[ShardOutput] = []
    base = output_root(root)

    def run_config(directory: Path) -> dict[str, Any] | None:
        return json_object(base, directory / RUN_CONFIG_FILE, RUN_CONFIG_CAP)

    for (index, count), path in found:
        name = f"shards/{shard_dir_name(index, count)}"
        top = run_config(path)
        pass_at = _count((top or run_config(path / run_dir_name(1)) or {}).get("pass_at"))
        records = [run_config(d) for d in run_dirs(path, pass_at)]
        if any(r is None or not _listing_ok(r.get("scenarios")) for r in records):
            raise Gaia2Error(
                f"{root / name}: no readable {RUN_CONFIG_FILE} for every run (missing or not what "
                "the runner writes): the shard never started or its files were damaged; rerun it "
                "(add --overwrite to start it afresh)"
            )
        shards.append(
            ShardOutput(
                index,
                count,
                path,
                name,
                read_fingerprint(path),
                [r for r in records if r is not None],
                json_object(base, path / SUMMARY_FILE),
            )
        )
    return shards


def check_same_setup(root: Path, shards: list[ShardOutput]) -> None:
    """One line naming the first shard that differs from the first one, and how."""
    missing = [s.name for s in shards if s.fingerprint is None]
    if missing:
        raise Gaia2Error(
            f"{root}: {_listing(missing)} has no fingerprint.json, so its setup cannot be "
            "checked: rerun it with the same config"
        )
    first = shards[0]
    for shard in shards[1:]:
        diffs = differences(first.fingerprint or {}, shard.fingerprint or {})
        if diffs:
            raise Gaia2Error(
                f"{root}: {shard.name} was run with another setup than {first.name} "
                f"({'; '.join(diffs)}): rerun it with the same config (--overwrite) or remove it"
            )


def check_same_plan(root: Path, shards: list[ShardOutput]) -> None:
    def ident(shard: ShardOutput) -> tuple[Any, ...]:
        info = shard.identity
        return (shard.count, info.get("plan_digest"), info.get("planned_scenarios"), info.get("pass_at"))

    kinds = sorted({ident(s) for s in shards}, key=repr)
    if len(kinds) > 1:
        groups = {k: [s.name for s in shards if ident(s) == k] for k in kinds}
        described = "; ".join(
            f"{_listing(names)} ({k[0]} shards, {k[2]} scenarios, pass@{k[3]})" for k, names in groups.items()
        )
        raise Gaia2Error(
            f"{root}: shards of different plans or partitions: {described}: "
            "remove the shard directories that do not belong"
        )


def claimed_runs(shards: list[ShardOutput]) -> dict[tuple[str, int], list[str]]:
    """(scenario key, run index) -> names of the shards that list it."""
    claims: dict[tuple[str, int], list[str]] = {}
    for shard in shards:
        for run_index, record in enumerate(shard.records, start=1):
            for item in record["scenarios"]:
                key = scenario_key(item.get("split"), item["scenario_id"])
                claims.setdefault((key, run_index), []).append(shard.name)
    return claims


def check_no_duplicates(root: Path, claims: dict[tuple[str, int], list[str]]) -> None:
    doubled = [
        f"{key.lstrip('/')} run {index} ({', '.join(names)})"
        for (key, index), names in sorted(claims.items())
        if len(names) > 1
    ]
    if doubled:
        raise Gaia2Error(
            f"{root}: {len(doubled)} run(s) recorded by more than one shard: {_listing(doubled)}: "
            "remove the stray shard directory (shards of one plan never overlap)"
        )


@dataclass
class Aggregate:
    outcome: DatasetOutcome
    shards: list[str]
    missing_shards: list[str]
    missing_runs: list[str]


def aggregate(root: Path, allow_partial: bool = False) -> Aggregate:
    """Check the shards under `root`, then write the merged outputs; raises Gaia2Error (also while
    a shard, or any other job, still writes there: output/dir_lock.py)."""
    with lock_output_dir(Path(root), hint="wait for it to finish, then aggregate"):
        return _aggregate(Path(root), allow_partial)


def _aggregate(root: Path, allow_partial: bool) -> Aggregate:
    t0 = time.monotonic()
    shards = read_shards(root)
    check_same_setup(root, shards)
    check_same_plan(root, shards)
    claims = claimed_runs(shards)
    check_no_duplicates(root, claims)
    count, info = shards[0].count, shards[0].identity
    pass_at = _count(info.get("pass_at"))
    present = {s.index for s in shards}
    missing_shards = [f"{i}/{count}" for i in range(1, count + 1) if i not in present]
    by_run: list[list[Job]] = [[] for _ in range(pass_at)]
    home = run_dirs(root, pass_at)
    for shard in shards:
        for run_index, record in enumerate(shard.records, start=1):
            for item in record["scenarios"]:
                ref = ScenarioRef(item["scenario_id"], item.get("split"), Path(str(item.get("path"))))
                by_run[run_index - 1].append(Job(ref, run_index, home[run_index - 1]))
    for jobs in by_run:
        jobs.sort(key=lambda j: (j.ref.split or "", j.ref.scenario_id))
    records_by_run = [collect_records(jobs) for jobs in by_run]
    have = {
        (scenario_key(r.get("split"), str(r.get("scenario_id"))), int(r.get("run_index") or 1))
        for rows in records_by_run
        for r in rows
    }
    missing_runs = [
        f"{key.lstrip('/')} run {index} ({names[0]})"
        for (key, index), names in sorted(claims.items())
        if (key, index) not in have
    ]
    if not allow_partial:
        if missing_shards:
            raise Gaia2Error(
                f"{root}: missing shard(s) {_listing(missing_shards)} of {count}: run them "
                "(run-config --config x.toml --shard I/N), or pass --allow-partial to merge anyway"
            )
        if missing_runs:
            raise Gaia2Error(
                f"{root}: {len(missing_runs)} run(s) without a result: {_listing(missing_runs)}: "
                "resume those shards (run-config --shard I/N; --retry for errors), "
                "or pass --allow-partial to merge anyway"
            )
    planned = int(info.get("planned_scenarios") or len({k for k, _ in claims}))
    if not missing_shards and len({k for k, _ in claims}) != planned and not allow_partial:
        raise Gaia2Error(
            f"{root}: the shards list {len({k for k, _ in claims})} scenarios but their plan has "
            f"{planned}: rerun the shards with the same config, or pass --allow-partial"
        )
    return _write(root, shards, by_run, records_by_run, pass_at, planned, missing_shards, missing_runs, t0)


def _write(
    root: Path,
    shards: list[ShardOutput],
    by_run: list[list[Job]],
    records_by_run: list[list[dict]],
    pass_at: int,
    planned: int,
    missing_shards: list[str],
    missing_runs: list[str],
    t0: float,
) -> Aggregate:
    home = run_dirs(root, pass_at)
    for index, (directory, jobs, rows) in enumerate(zip(home, by_run, records_by_run), start=1):
        base = dict(shards[0].records[index - 1])
        base.pop("shard", None)
        base.update(
            command="aggregate",
            run_index=index,
            started_at=min((s.records[index - 1].get("started_at") or "" for s in shards), default=None)
            or None,
            finished_at=now_iso(),
            shards=[s.name for s in shards],
            scenario_count=len(jobs),
            scenarios=[
                {"scenario_id": j.ref.scenario_id, "split": j.ref.split, "path": str(j.ref.path)}
                for j in jobs
            ],
        )
        rewrite(directory / RESULTS_LOG_FILE, rows)
        write_run_record(directory, base)
    records = [r for rows in records_by_run for r in rows]
    durations = [
        float(d) for s in shards if isinstance(d := (s.summary or {}).get("job_duration_s"), (int, float))
    ]
    summary = summarize(records, pass_at, max(durations) if durations else None, planned * pass_at)
    header = {
        k: v
        for k, v in (shards[0].summary or {}).items()
        if k in ("runner_version", "image", "provider", "model", "judge_provider", "judge_model")
    }
    header.update(
        generated_at=now_iso(),
        run_dirs=[str(d) for d in home],
        interrupted=False,
        aggregated_from=[s.name for s in shards],
        missing_shards=missing_shards,
        aggregate_duration_s=round(time.monotonic() - t0, 3),
    )
    write_summary(summary, root / SUMMARY_FILE, header)
    merged = dict(shards[0].fingerprint or {})
    merged["scenarios"] = {
        k: v for s in shards for k, v in ((s.fingerprint or {}).get("scenarios") or {}).items()
    }
    write_fingerprint(root, merged)
    outcome = DatasetOutcome(root, home, records, summary, ran=0, reused=len(records))
    return Aggregate(outcome, [s.name for s in shards], missing_shards, missing_runs)
