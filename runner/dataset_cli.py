"""The work behind `run-dataset` and `run-config`, kept out of cli.py so that stays a thin layer.

Order matters: .env is loaded, the config is built and the targets resolved, then every check
(scenario files, API keys, the image) runs before the first container starts. A dry run stops
after the checks and prints the plan.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gaia2_runner.config import apply_overrides, load_config, load_env_file
from gaia2_runner.dataset_view import errors_table
from gaia2_runner.executor import DatasetOutcome, preflight, run_dataset
from gaia2_runner.plan import describe_plan
from gaia2_runner.podman_backend import PodmanBackend
from gaia2_runner.report import render_summary
from gaia2_runner.resume import all_jobs, run_dirs, select
from gaia2_runner.targets import resolve_targets
from rich.console import Console


def build_config(config_path: Path | None, overrides: dict[str, Any], env_file: Path | None) -> Any:
    """Load .env (the real environment wins), then the TOML (if any) with flags on top."""
    load_env_file(env_file, config_path.parent if config_path else Path.cwd())
    return apply_overrides(load_config(config_path), overrides)


def launch(config: Any, *, retry: bool, dry_run: bool, out: Console, err: Console) -> int:
    """Resolve, check, then run (or print the plan); returns the exit code."""
    refs = resolve_targets(config.target)
    with PodmanBackend.connect() as backend:
        if dry_run:
            preflight(config, refs, backend)
            out.print(describe_plan(config, refs))
            jobs = all_jobs(refs, run_dirs(Path(config.run.output_dir), max(1, config.run.pass_at or 1)))
            pending = select(jobs, bool(retry or config.run.retry))
            out.print(f"{len(pending.todo)} of {len(jobs)} runs would start "
                      f"({len(pending.done)} already have a result)")
            return 0
        outcome = run_dataset(config, refs, retry=retry, console=err, backend=backend)
    show_outcome(outcome, out)
    return outcome.exit_code


def show_outcome(outcome: DatasetOutcome, out: Console) -> None:
    out.print(render_summary(outcome.summary))
    table = errors_table(outcome.records)
    if table is not None:
        out.print(table)
    out.print(f"results: {outcome.output_dir} (summary.json; results.jsonl in "
              f"{', '.join(str(d) for d in outcome.run_dirs)})")
    if outcome.interrupted:
        out.print("[yellow]interrupted: rerun the same command to finish the remaining scenarios[/]")
