"""`submit --slurm`: the shards of a config as one sbatch array, then `aggregate` after it.

SLURM does the scheduling; we only write two batch scripts into `<output>/slurm/` and hand them
to `sbatch`. Array task t (0-based) runs `run-config --config X --shard (t+1)/N` on whatever node
SLURM picks, with that node's engine (submit's --engine, else the config's or $GAIA2_ENGINE,
chosen there as for any run: CONTAINER_HOST/DOCKER_HOST if exported, else its default socket or
a private podman service); the aggregate job waits for the whole array (`afterany`, so a failed
shard still gets its gaps reported by aggregate's one `error:` line in its log). The scripts name the Python
that submitted them (`python -m gaia2_runner.cli`), so nodes need the same installation path on
the shared filesystem; sbatch exports the submitting environment (its default), and keys stay in
.env files: the scripts hold no secret.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.text import one_line

SLURM_DIR = "slurm"  # <output>/slurm/: the scripts and logs/


@dataclass(frozen=True)
class SlurmJob:
    config: Path  # absolute
    output_dir: Path  # absolute
    shards: int
    workdir: Path
    partition: str | None = None
    time: str | None = None
    sbatch_args: tuple[str, ...] = ()
    max_parallel: int | None = None
    env_file: Path | None = None
    engine: str | None = None  # --engine for every shard; None: the config's, else $GAIA2_ENGINE (exported)
    python: str = field(default_factory=lambda: sys.executable)

    @property
    def directory(self) -> Path:
        return self.output_dir / SLURM_DIR

    @property
    def logs(self) -> Path:
        return self.directory / "logs"


def _header(job: SlurmJob, name: str, output: str) -> list[str]:
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={name}",
        f"#SBATCH --chdir={job.workdir}",
        f"#SBATCH --output={job.logs / output}",
    ]
    if job.partition:
        lines.append(f"#SBATCH --partition={job.partition}")
    if job.time:
        lines.append(f"#SBATCH --time={job.time}")
    lines += [f"#SBATCH {arg}" for arg in job.sbatch_args]
    return lines


def shards_script(job: SlurmJob) -> str:
    limit = f"%{job.max_parallel}" if job.max_parallel else ""
    env_file = f" --env-file {shlex.quote(str(job.env_file))}" if job.env_file else ""
    engine = f" --engine {shlex.quote(job.engine)}" if job.engine else ""
    lines = _header(job, "gaia2-shards", "shard-%A_%a.out")
    lines.insert(2, f"#SBATCH --array=0-{job.shards - 1}{limit}")
    lines += [
        "# Written by gaia2-runner submit --slurm: task t runs shard t+1 of the config.",
        "set -euo pipefail",
        "shard=$((SLURM_ARRAY_TASK_ID + 1))",
        f'echo "gaia2-runner shard $shard/{job.shards} on $(hostname), job $SLURM_ARRAY_JOB_ID"',
        f"exec {shlex.quote(job.python)} -m gaia2_runner.cli run-config --config {shlex.quote(str(job.config))}"
        f'{env_file}{engine} --shard "$shard/{job.shards}"',
    ]
    return "\n".join(lines) + "\n"


def aggregate_script(job: SlurmJob) -> str:
    lines = _header(job, "gaia2-aggregate", "aggregate-%j.out") + [
        "# Written by gaia2-runner submit --slurm: merges the shards once the array has ended.",
        "set -euo pipefail",
        f"exec {shlex.quote(job.python)} -m gaia2_runner.cli aggregate {shlex.quote(str(job.output_dir))}",
    ]
    return "\n".join(lines) + "\n"


def write_scripts(job: SlurmJob) -> tuple[Path, Path]:
    job.logs.mkdir(parents=True, exist_ok=True)
    shards, aggregate = job.directory / "shards.sbatch", job.directory / "aggregate.sbatch"
    shards.write_text(shards_script(job), encoding="utf-8")
    aggregate.write_text(aggregate_script(job), encoding="utf-8")
    return shards, aggregate


def sbatch(*args: str) -> str:
    """Run sbatch --parsable; the job id. One Gaia2Error line when sbatch is missing or refuses."""
    if shutil.which("sbatch") is None:
        raise Gaia2Error(
            "sbatch not found: run on a SLURM login node (or install slurm-wlm; "
            "scripts/setup-slurm.sh sets up a single-node cluster)"
        )
    proc = subprocess.run(["sbatch", "--parsable", *args], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise Gaia2Error(f"sbatch refused the job: {one_line(proc.stderr or proc.stdout, 300)}")
    return proc.stdout.strip().split(";")[0]


def submit(job: SlurmJob) -> tuple[str, str]:
    """Write both scripts, submit the array, then the aggregate job after it; their job ids."""
    shards, aggregate = write_scripts(job)
    array_id = sbatch(str(shards))
    aggregate_id = sbatch(f"--dependency=afterany:{array_id}", str(aggregate))
    return array_id, aggregate_id
