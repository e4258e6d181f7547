"""`demo` takes the one run path: concurrency, the progress display, run_config.json,
results.jsonl, summary.json and the report, like run-dataset (real containers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]


def test_demo_with_concurrency_writes_the_run_record(images, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = subprocess.run([sys.executable, "-m", "gaia2_runner.cli", "demo", "--concurrency", "4",
                           "--output-dir", str(out)], cwd=REPO, capture_output=True, text=True, timeout=500)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    demos = sorted(p.stem for p in (REPO / "examples" / "scenarios").glob("*.json"))
    record = json.loads((out / "run_config.json").read_text())
    assert record["command"] == "demo" and record["finished_at"] and record["config"]["run"]["concurrency"] == 4
    assert sorted(s["scenario_id"] for s in record["scenarios"]) == demos
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["scenario_id"] for r in results) == demos and all(r["success"] is True for r in results)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["overall"]["success_rate"]["value"] == 1.0
    assert all((out / name / "result.json").is_file() for name in demos)  # no split directory for demo
    assert "gaia2-runner report" in proc.stdout and (out / "index.html").is_file()
