"""Which scenario runs are already done, and which must (re)run.

The per-scenario result.json is the only evidence trusted: it is written atomically, so after any
interruption (even kill -9) it is either whole or absent. results.jsonl is a convenience stream and
is never consulted to decide what to skip.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia2_runner.output.layout import result_path, scenario_dir, split_dir

if TYPE_CHECKING:
    from gaia2_runner.targets.resolve import ScenarioRef


@dataclass(frozen=True)
class Job:
    """One scenario run: scenario `ref`, repetition `run_index` (1-based), written under `run_dir`."""

    ref: ScenarioRef
    run_index: int
    run_dir: Path

    @property
    def parent_dir(self) -> Path:
        """The split's directory inside the run directory (the run directory without a split)."""
        return split_dir(self.run_dir, self.ref.split)

    @property
    def result_dir(self) -> Path:
        return scenario_dir(self.run_dir, self.ref.split, self.ref.scenario_id)

    @property
    def result_path(self) -> Path:
        return result_path(self.result_dir)


@dataclass
class Selection:
    """`todo` runs now; `done` keeps its verified result.json content."""

    todo: list[Job] = field(default_factory=list)
    done: list[tuple[Job, dict[str, Any]]] = field(default_factory=list)


def all_jobs(refs: list[ScenarioRef], dirs: list[Path]) -> list[Job]:
    """Every (scenario, repetition) pair, repetition-major so run 1 finishes first."""
    return [Job(ref, index, d) for index, d in enumerate(dirs, start=1) for ref in refs]


def read_result(job: Job) -> dict[str, Any] | None:
    """The job's result.json when it parses, belongs to this scenario and has a valid `success`."""
    try:
        data = json.loads(job.result_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("scenario_id") != job.ref.scenario_id:
        return None
    success = data.get("success")
    if success is not None and not isinstance(success, bool):
        return None
    return data


def load_verified(job: Job) -> dict[str, Any] | None:
    """read_result, minus runs the user interrupted: those are unfinished, not an outcome."""
    data = read_result(job)
    if data is None or data.get("status") == "interrupted":
        return None
    return data


def select(jobs: list[Job], retry: bool) -> Selection:
    """Split jobs into those to run and those already done.

    A verdict (success true/false) is always kept. An infrastructure error (success null) is kept
    too, unless `retry` asks to run it again; so is a verdict whose artifacts a podman outage lost.
    """
    selection = Selection()
    for job in jobs:
        data = load_verified(job)
        if data is None or (retry and (data.get("success") is None or data.get("artifacts_lost") is True)):
            selection.todo.append(job)
        else:
            selection.done.append((job, data))
    return selection


def holds_verdicts(jobs: list[Job]) -> bool:
    """Whether any job's result has a verdict (success true or false)."""
    return any(isinstance((read_result(job) or {}).get("success"), bool) for job in jobs)


def record_for(job: Job, result: dict[str, Any]) -> dict[str, Any]:
    """A results.jsonl line: the result.json content plus where it belongs."""
    return {**result, "split": job.ref.split, "run_index": job.run_index}


def collect_records(jobs: list[Job]) -> list[dict[str, Any]]:
    """The latest result of every job that has one, as results.jsonl lines, in job order."""
    return [record_for(job, data) for job in jobs if (data := read_result(job)) is not None]
