"""What a dataset run leaves besides each scenario's files: results.jsonl rebuilt from the
result.json files, run_config.json per run directory, and the summary's header."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from gaia2_runner import __version__
from gaia2_runner.execution.hosts import Host
from gaia2_runner.execution.image_pin import ImagePin
from gaia2_runner.execution.job_limits import JobLimits
from gaia2_runner.execution.jobs import Job, collect_records
from gaia2_runner.execution.plan import RunPlan
from gaia2_runner.output.layout import RESULTS_LOG_FILE
from gaia2_runner.output.results_log import rewrite
from gaia2_runner.output.run_record import run_record, write_run_record
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.text import now_iso


def rebuild_results(plan: RunPlan, jobs: Sequence[Job]) -> list[dict[str, Any]]:
    """results.jsonl from the result.json files: exactly one line per scenario, the latest."""
    records: list[dict[str, Any]] = []
    for directory, record_dir in zip(plan.run_dirs, plan.record_dirs):
        lines = collect_records([job for job in jobs if job.run_dir == directory])
        rewrite(record_dir / RESULTS_LOG_FILE, lines)
        records.extend(lines)
    return records


def write_run_records(
    plan: RunPlan,
    jobs: Sequence[Job],
    scrub: Scrubber,
    started_at: str,
    finished_at: str | None,
    pin: ImagePin | None,
    engine: Mapping[str, str] | None = None,
) -> None:
    """run_config.json of every run directory; `engine`: the planning host's EngineInfo.as_dict()."""
    for run_index, (directory, record_dir) in enumerate(zip(plan.run_dirs, plan.record_dirs), 1):
        chosen = [job for job in jobs if job.run_dir == directory]
        record = run_record(
            plan.config,
            command=plan.command,
            run_index=run_index,
            pass_at=plan.pass_at,
            retry=plan.retry,
            started_at=started_at,
            finished_at=finished_at,
            scenarios=[(j.ref.scenario_id, j.ref.split, j.ref.path) for j in chosen],
            shard=plan.shard_info,
            image_id=pin.image_id if pin else None,
            engine=engine,
        )
        write_run_record(record_dir, scrub.value(record))


def summary_header(
    plan: RunPlan, hosts: Sequence[Host], limits: JobLimits, records: list[dict[str, Any]], interrupted: bool
) -> dict[str, Any]:
    agent, judge = plan.config.agent, plan.config.judge
    return {
        "runner_version": __version__,
        "generated_at": now_iso(),
        "image": agent.image,
        "provider": agent.provider,
        "model": agent.model,
        "judge_provider": judge.provider,
        "judge_model": judge.model,
        "noise": plan.config.run.noise,
        "run_dirs": [str(d) for d in plan.run_dirs],
        **({"shard": plan.shard_info} if plan.shard_info else {}),
        **({"hosts": [h.url for h in hosts]} if len(hosts) > 1 else {}),
        "interrupted": interrupted,
        **limits.summary(),
        "statuses": dict(Counter(str(r.get("status")) for r in records)),
    }
