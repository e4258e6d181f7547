"""`submit --slurm` without SLURM: the scripts it writes (`--dry-run`) and its one-line refusals.
tests/test_slurm_e2e.py submits to a real single-node cluster."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from gaia2_runner.sandbox.images import ORACLE_IMAGE

REPO = Path(__file__).resolve().parents[1]
DEMO = sorted((REPO / "examples" / "scenarios").glob("*.json"))
CLI = [sys.executable, "-m", "gaia2_runner.cli"]


def two_splits(root: Path) -> Path:
    for index, path in enumerate(DEMO):
        split = root / ("alpha" if index % 2 == 0 else "beta")
        split.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, split / path.name)
    return root


def config(path: Path, data: Path, out: Path) -> Path:
    path.write_text(f'[target]\ndataset_root = "{data}"\n[agent]\nimage = "{ORACLE_IMAGE}"\nprovider = "oracle"\n'
                    f'[run]\noutput_dir = "{out}"\n')
    return path


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, env={**os.environ, "COLUMNS": "200"})


def test_submit_dry_run_and_refusals(tmp_path: Path):
    data = two_splits(tmp_path / "data")
    x = config(tmp_path / "x.toml", data, tmp_path / "out")
    proc = cli("submit", "--slurm", "--config", str(x), "--shards", "4", "--partition", "gpu", "--max-parallel", "2",
               "--dry-run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "#SBATCH --array=0-3%2" in proc.stdout and "#SBATCH --partition=gpu" in proc.stdout
    assert f"--config {x}" in proc.stdout and "--shard \"$shard/4\"" in proc.stdout
    assert "aggregate" in (tmp_path / "out" / "slurm" / "aggregate.sbatch").read_text()
    for args, fragment in ((["--shards", "4"], "choose a scheduler: --slurm"),
                           (["--slurm", "--shards", "0"], "--shards must be 1 to 10000"),
                           (["--slurm", "--shards", "2", "--max-parallel", "0"], "--max-parallel must be at least 1")):
        proc = cli("submit", "--config", str(x), *args, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr.startswith("error:") and fragment in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    x.write_text(x.read_text() + 'shard = "1/2"\n')
    proc = cli("submit", "--slurm", "--config", str(x), "--shards", "2", cwd=tmp_path)
    assert proc.returncode == 2 and "[run] shard: remove it" in proc.stderr
