"""`submit --slurm --config x.toml --shards N`: the config's shards as an sbatch array plus a
dependent `aggregate` job (execution/slurm.py), then how to watch them."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.text import Text

from gaia2_runner.cli.console import out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.launch import build_config
from gaia2_runner.cli.options import EngineOption
from gaia2_runner.config.defaults import MAX_SHARDS
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.plan import plan_run
from gaia2_runner.execution.slurm import SlurmJob, submit, write_scripts
from gaia2_runner.text import printable

_SLURM_OPTION = typer.Option(
    False, "--slurm", help="Submit to SLURM with sbatch (the one scheduler supported)."
)
_SHARDS_OPTION = typer.Option(..., "--shards", help="N: one array task per shard, each running --shard I/N.")
_TIME_LIMIT_OPTION = typer.Option(None, "--time", help="sbatch --time per shard task (e.g. 12:00:00).")
_SBATCH_ARGS_OPTION = typer.Option(
    None,
    "--sbatch-arg",
    help="Extra sbatch option for every job, e.g. --sbatch-arg=--cpus-per-task=8 (repeatable).",
)
_MAX_PARALLEL_OPTION = typer.Option(
    None, "--max-parallel", help="At most this many shards at once (--array %M)."
)
_ENV_FILE_OPTION = typer.Option(
    None, "--env-file", help="dotenv file the shards load (default: next to the config)."
)


@friendly
def submit_cmd(
    config_path: str = typer.Option(..., "--config", help="TOML run configuration (as for run-config)."),
    slurm: bool = _SLURM_OPTION,
    shards: int = _SHARDS_OPTION,
    partition: str | None = typer.Option(None, "--partition", help="sbatch --partition for every job."),
    time_limit: str | None = _TIME_LIMIT_OPTION,
    sbatch_args: list[str] | None = _SBATCH_ARGS_OPTION,
    max_parallel: int | None = _MAX_PARALLEL_OPTION,
    env_file: str | None = _ENV_FILE_OPTION,
    dry_run: bool = typer.Option(False, "--dry-run", help="Write and print the scripts; submit nothing."),
    engine: EngineOption = None,
) -> None:
    """Run a config's shards as a SLURM array, then aggregate them, and print how to watch it.

    Every task runs `run-config --config X --shard I/N` on its node's engine; the output_dir must
    be on a filesystem every node shares. Checks the config and scenarios first (no container engine).
    """
    if not slurm:
        raise Gaia2Error("choose a scheduler: --slurm (the only one supported)")
    if not 1 <= shards <= MAX_SHARDS:
        raise Gaia2Error(f"--shards must be 1 to {MAX_SHARDS}, got {shards}")
    if max_parallel is not None and max_parallel < 1:
        raise Gaia2Error(f"--max-parallel must be at least 1, got {max_parallel}")
    config = build_config(
        config_path, {"engine": engine}, env_file
    )  # a bad --engine: one line, before sbatch
    if config.run.shard:
        raise Gaia2Error(
            f"{config.where('shard')}: remove it: submit gives every task its own --shard I/{shards}"
        )
    plan = plan_run(config, command="submit")  # every check that needs no engine, before sbatch
    scenarios = len(plan.refs)
    job = SlurmJob(
        config=Path(config_path).resolve(),
        output_dir=plan.output_dir.resolve(),
        shards=shards,
        workdir=Path(os.getcwd()),
        partition=partition,
        time=time_limit,
        sbatch_args=tuple(sbatch_args or ()),
        max_parallel=max_parallel,
        env_file=Path(env_file).resolve() if env_file else None,
        engine=engine,
    )
    if shards > scenarios:
        out.print(
            Text(f"note: {shards} shards for {scenarios} scenarios: {shards - scenarios} shard(s) get none")
        )
    if dry_run:
        shards_file, aggregate_file = write_scripts(job)
        for path in (shards_file, aggregate_file):
            out.print(Text(printable(f"# {path}")))
            out.print(Text(printable(path.read_text())))
        return
    _show_submitted(job, *submit(job), scenarios=scenarios, pass_at=plan.pass_at)


def _show_submitted(job: SlurmJob, array_id: str, aggregate_id: str, *, scenarios: int, pass_at: int) -> None:
    """What was submitted and how to follow it: squeue, the logs, the live viewer, the summary."""
    shards = job.shards
    root = job.output_dir
    lines = [
        f"submitted: shards job {array_id} ({shards} array tasks, {scenarios} scenarios × pass@{pass_at}), "
        f"aggregate job {aggregate_id} after it",
        f"watch:   squeue -j {array_id},{aggregate_id}    (sacct -j {array_id} where accounting is on)",
        f"logs:    {job.logs}/",
        f"live:    gaia2-runner serve --output-dir {root}",
        f"result:  {root / 'summary.json'} once job {aggregate_id} ends; "
        f"a failed shard: rerun it (run-config --config {job.config} --shard I/{shards}), "
        f"then gaia2-runner aggregate {root}",
    ]
    for line in lines:
        out.print(Text(printable(line)), soft_wrap=True)
