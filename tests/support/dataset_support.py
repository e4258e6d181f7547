"""What the dataset tests share: the demo scenarios as a dataset (one split of some of them, or two
splits of all), an oracle run config over it, the CLI as a subprocess, and summary.json's timing-free
numbers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from gaia2_runner.sandbox.images import ORACLE_IMAGE

REPO = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO / "examples" / "scenarios"
DEMO = sorted(DEMO_DIR.glob("*.json"))
CLI = [sys.executable, "-m", "gaia2_runner.cli"]
STAT_KEYS = ("scenarios", "runs", "verdict_runs", "successes", "infra_errors", "pass_at_k", "pass_hat_k")


def demo_split(root: Path, names: Iterable[str] | None = None, split: str = "demo") -> Path:
    """A dataset root with one split holding the named demo scenarios (all of them by default)."""
    target = root / split
    target.mkdir(parents=True)
    for path in DEMO if names is None else [DEMO_DIR / f"{name}.json" for name in names]:
        shutil.copy(path, target / path.name)
    return root


def two_splits(root: Path) -> Path:
    """The demo scenarios as a dataset with two splits (5 in `alpha`, 4 in `beta`)."""
    for index, path in enumerate(DEMO):
        split = root / ("alpha" if index % 2 == 0 else "beta")
        split.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, split / path.name)
    return root


def oracle_config(path: Path, data: Path, out: Path, *, target: str = "", run: str = "") -> Path:
    """A run config for the oracle over `data` into `out`; `target`/`run`: more TOML lines."""
    path.write_text(
        f'[target]\ndataset_root = "{data}"\n{target}'
        f'[agent]\nimage = "{ORACLE_IMAGE}"\nprovider = "oracle"\n'
        f'[run]\noutput_dir = "{out}"\n{run}'
    )
    return path


def oracle_dataset(data: Path, out: Path, concurrency: int = 1) -> list[str]:
    """`gaia2-runner run-dataset` of the oracle image over `data` into `out`: the argv the dataset
    tests start from (append their own options)."""
    return [
        *CLI,
        "run-dataset",
        "--dataset-root",
        str(data),
        "--image",
        ORACLE_IMAGE,
        "--output-dir",
        str(out),
        "--concurrency",
        str(concurrency),
    ]


def llm_on(base: str, model: str = "fake-model", judge_model: str = "fake-judge") -> list[str]:
    """The options that run the built-in LLM agent and the judge on one OpenAI-compatible server at
    `base` (the scripted provider, mostly)."""
    return [
        "--agent",
        "llm",
        "--provider",
        "openai-compat",
        "--model",
        model,
        "--base-url",
        base,
        "--judge-provider",
        "openai-compat",
        "--judge-model",
        judge_model,
        "--judge-base-url",
        base,
    ]


def run_cli(*args: str, cwd: Path = REPO, timeout: float = 900) -> subprocess.CompletedProcess:
    """The CLI in a subprocess, its tables 200 columns wide."""
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )


def stat_numbers(stats: dict) -> dict:
    """One summary group's counts and success rate (nothing that depends on timing)."""
    rate = stats["success_rate"]
    return {**{k: stats[k] for k in STAT_KEYS}, "rate": (rate["value"], rate["std"], rate["per_run"])}
