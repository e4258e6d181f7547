"""`submit --slurm` without SLURM: the scripts it writes (`--dry-run`) and its one-line refusals.
tests/e2e/test_slurm_e2e.py submits to a real single-node cluster."""

from __future__ import annotations

from pathlib import Path

from dataset_support import oracle_config as config
from dataset_support import run_cli as cli
from dataset_support import two_splits


def test_submit_dry_run_and_refusals(tmp_path: Path):
    data = two_splits(tmp_path / "data")
    x = config(tmp_path / "x.toml", data, tmp_path / "out")
    proc = cli(
        "submit",
        "--slurm",
        "--config",
        str(x),
        "--shards",
        "4",
        "--partition",
        "gpu",
        "--max-parallel",
        "2",
        "--dry-run",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "#SBATCH --array=0-3%2" in proc.stdout and "#SBATCH --partition=gpu" in proc.stdout
    assert f"--config {x}" in proc.stdout and '--shard "$shard/4"' in proc.stdout
    assert "aggregate" in (tmp_path / "out" / "slurm" / "aggregate.sbatch").read_text()
    for args, fragment in (
        (["--shards", "4"], "choose a scheduler: --slurm"),
        (["--slurm", "--shards", "0"], "--shards must be 1 to 10000"),
        (["--slurm", "--shards", "2", "--max-parallel", "0"], "--max-parallel must be at least 1"),
    ):
        proc = cli("submit", "--config", str(x), *args, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr.startswith("error:") and fragment in proc.stderr, (
            proc.stderr
        )
        assert len(proc.stderr.strip().splitlines()) == 1
    x.write_text(x.read_text() + 'shard = "1/2"\n')
    proc = cli("submit", "--slurm", "--config", str(x), "--shards", "2", cwd=tmp_path)
    assert proc.returncode == 2 and "[run] shard: remove it" in proc.stderr
