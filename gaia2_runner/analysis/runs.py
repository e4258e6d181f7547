"""What `ls` shows for one output directory: who ran what, when, and how it scored."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.read.labels import run_labels
from gaia2_runner.output.read.record import load_rows
from gaia2_runner.output.read.run_files import first_run_config, holds_run, read_summary
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.verdicts import CURRENT, REJUDGED, VerdictSet, choose
from gaia2_runner.output.summary import summarize

MAX_FOUND = 10_000  # output directories one `ls` lists: a typo must not walk a whole disk


@dataclass
class RunInfo:
    """One output directory. `rate` is the headline success rate (every run counts, as in
    summary.json; recomputed from the rows when the verdicts are a re-judge's); `complete` is
    False while runs are missing or have no verdict; `verdicts`: the set the numbers come from."""

    path: Path
    command: str | None = None
    agent: str | None = None  # the kind (output/agent_kind.py): oracle, llm, are-default, a harness, custom
    model: str | None = None
    provider: str | None = None
    image: str | None = None
    image_id: str | None = None
    engine: str | None = None  # podman | docker (run_config.json's `engine`); None: recorded before engines
    judge: str | None = None
    runner_version: str | None = None
    started_at: str | None = None
    scenarios: int = 0
    runs: int = 0
    pass_at: int = 1
    rate: float | None = None
    pass_at_k_rate: float | None = None
    complete: bool = False
    verdicts: VerdictSet = VerdictSet()


def is_output_dir(path: Path) -> bool:
    return holds_run(output_root(path))


def find_output_dirs(paths: list[Path]) -> list[Path]:
    """Each path that is an output directory, else the output directories below it (two levels)."""
    found: list[Path] = []
    for path in map(Path.expanduser, paths):  # `~` as every reader takes it (safe_io.output_root)
        if not path.is_dir():
            raise Gaia2Error(f"{path}: no such directory (give output directories of gaia2-runner runs)")
        if is_output_dir(path):
            found.append(path)
            continue
        for dirpath, dirnames, _ in os.walk(path):
            depth = len(Path(dirpath).relative_to(path).parts)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
            if depth and is_output_dir(Path(dirpath)):
                found.append(Path(dirpath))
                dirnames[:] = []
            elif depth >= 2:
                dirnames[:] = []
            if len(found) >= MAX_FOUND:
                return found
    return found


def describe(path: Path, verdicts: str = CURRENT, *, strict: bool = False) -> RunInfo:
    """What `ls` shows of `path`, its numbers from the verdict set `verdicts` (verdicts.choose;
    not `strict`: a directory never re-judged shows its original verdicts, and says so)."""
    root = output_root(path)
    info = RunInfo(path=path, verdicts=choose(root, verdicts, strict=strict))
    config = first_run_config(root)
    summary = read_summary(root)
    labels = run_labels(root, None)
    info.agent, info.model, info.provider, info.judge = (
        labels.agent,
        labels.model,
        labels.provider,
        labels.judge,
    )
    info.image_id, info.runner_version = labels.image_id, labels.runner_version
    if config:
        settings = config.get("config")
        if not isinstance(settings, dict):
            settings = {}
        agent = settings.get("agent")
        if not isinstance(agent, dict):
            agent = {}
        info.command = _str(config.get("command"))
        info.image = _str(config.get("image")) or _str(agent.get("image"))
        info.started_at = _str(config.get("started_at"))
        info.pass_at = _int(config.get("pass_at")) or 1
        engine = config.get("engine")
        if not isinstance(engine, dict):
            engine = {}
        info.engine = _str(engine.get("engine"))
    rows = load_rows(root, info.verdicts)
    info.runs = len(rows)
    info.scenarios = len({(r.split, r.scenario_id) for r in rows})
    if summary and isinstance(summary.get("overall"), dict):
        overall = summary["overall"]
        rate = overall.get("success_rate")
        info.rate = _num(rate.get("value")) if isinstance(rate, dict) else None
        info.pass_at_k_rate = _num(overall.get("pass_at_k_rate"))
        info.complete = summary.get("complete") is True
        info.pass_at = _int(summary.get("pass_at")) or info.pass_at
    if rows and (
        info.verdicts.name == REJUDGED or not summary or not isinstance(summary.get("overall"), dict)
    ):
        # summary.json holds the run's own verdicts; a re-judge's (or a run interrupted before
        # summary.json) is recomputed from the rows
        stats = summarize([r.summary_record() for r in rows], pass_at=info.pass_at).overall
        info.rate, info.pass_at_k_rate = stats.success_rate.value, stats.pass_at_k_rate
    return info


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
