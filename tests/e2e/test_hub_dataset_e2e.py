"""`run-dataset --dataset <local copy in the original hub layout> --config mini --split validation`
with the oracle in real podman: the config's scenarios run, each result carries the config as its
split (ARE's report groups by config), and the summary reports it. Two oracle containers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from make_hub_dataset import CONFIGS, make_hub_dataset

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]


def test_mini_config_of_a_hub_copy_runs_with_the_config_as_split(images, tmp_path: Path) -> None:
    hub = make_hub_dataset(tmp_path / "gaia2")
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run-dataset",
            "--dataset",
            str(hub),
            "--config",
            "mini",
            "--split",
            "validation",
            "--agent",
            "oracle",
            "--concurrency",
            "2",
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=480,
        env={**os.environ, "COLUMNS": "200", "GAIA2_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted((r["split"], r["scenario_id"], r["success"]) for r in rows) == sorted(
        ("mini", sid, True) for sid in CONFIGS["mini"]
    )
    assert all((out / "mini" / sid / "result.json").is_file() for sid in CONFIGS["mini"])
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["splits"]) == ["mini"] and summary["overall"]["runs"] == len(CONFIGS["mini"])
