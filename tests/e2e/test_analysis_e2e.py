"""`ls`, `compare` and `export` on real run outputs: the oracle on three demo scenarios, and a
scripted agent that gives up at once on the same three (real containers)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_support import demo_split

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
DEMOS = ("demo_calendar_add_event", "demo_email_reply", "demo_messaging_send")


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gaia2_runner.cli", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def runs(images, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("analysis")
    demo_split(base / "dataset", DEMOS, "search")
    good, bad = base / "exp" / "oracle", base / "exp" / "gives-up"
    proc = _cli("run-dataset", "--dataset-root", str(base / "dataset"), "--output-dir", str(good), "--concurrency", "3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _cli("run-dataset", "--dataset-root", str(base / "dataset"), "--output-dir", str(bad), "--concurrency", "3",
                "--env", "GAIA2_AGENT_COMMAND=true")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # verdicts exist: failures, not errors
    return good, bad


def test_ls_lists_both_runs_with_their_rates(runs: tuple[Path, Path]) -> None:
    good, bad = runs
    proc = _cli("ls", str(good.parent))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    row_good = next(line for line in lines if str(good) in line or line.strip().startswith(str(good)[:20]))
    assert "100.0%" in proc.stdout and "0.0%" in proc.stdout and "yes" in row_good


def test_compare_reports_three_broken_scenarios(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    page = tmp_path / "cmp.html"
    proc = _cli("compare", str(good), str(bad), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    assert "B - A over 3 scenarios in common" in proc.stdout
    assert "success 100.0% → 0.0%, -100.0 points, 95% interval -100.0 to -100.0" in proc.stdout
    assert "flips: 0 fixed, 3 broke, 0 unchanged" in proc.stdout
    assert "custom · oracle" in proc.stdout  # B ran GAIA2_AGENT_COMMAND in the oracle image: not "oracle"
    assert all(name in proc.stdout for name in DEMOS)
    assert max(map(len, proc.stdout.splitlines())) <= 80
    html = page.read_text()
    assert html.count('class="broke"') == 3 and "<script" not in html


def test_export_formats_on_real_runs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    for fmt in ("csv", "jsonl", "parquet"):
        proc = _cli("export", str(bad), "--format", fmt, "--out", str(tmp_path / f"x.{fmt}"))
        assert proc.returncode == 0 and "wrote 3 rows" in proc.stdout, proc.stderr
    rows = list(csv.DictReader((tmp_path / "x.csv").open()))
    assert sorted(r["scenario_id"] for r in rows) == list(DEMOS)
    assert all(r["status"] == "fail" and r["split"] == "search" and r["detail"] == "agent_exit" for r in rows)
    assert all(float(r["sim_end"]) >= float(r["sim_start"]) > 1.7e9 for r in rows)
    docs = [json.loads(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert [d["success"] for d in docs] == [False] * 3
    import pandas as pd

    frame = pd.read_parquet(tmp_path / "x.parquet")
    assert len(frame) == 3 and frame["actions"].tolist() == [0, 0, 0]
    proc = _cli("export", str(good), "--format", "xml")
    assert proc.returncode == 2 and proc.stderr.startswith("error: --format xml")


def test_are_and_leaderboard_exports_on_real_runs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    proc = _cli("export", str(bad), "--format", "are", "--out", str(tmp_path / "are"))
    assert proc.returncode == 0 and "wrote 3 runs" in proc.stdout, proc.stderr
    names = sorted(p.name for p in (tmp_path / "are" / "hf").iterdir())
    assert names == [f"search__{name}_run_1.json" for name in DEMOS]
    assert sorted(p.name for p in (tmp_path / "are" / "lite").iterdir()) == names
    hf = json.loads((tmp_path / "are" / "hf" / names[0]).read_text())
    assert {"metadata", "apps", "events", "completed_events", "version"} <= set(hf)  # ARE's exporter's own dump
    lite = json.loads((tmp_path / "are" / "lite" / names[0]).read_text())
    assert lite["scenario_id"] == DEMOS[0] and lite["validation_decision"] == "Invalid"

    proc = _cli("export", str(good), "--format", "leaderboard", "--out", str(tmp_path / "lb"))
    assert proc.returncode == 0, proc.stderr
    from datasets import load_dataset

    rows = load_dataset(str(tmp_path / "lb"), name="search")["validation"].to_list()
    assert sorted(r["scenario_id"] for r in rows) == list(DEMOS)
    assert all(r["score"] == 1.0 and r["status"] == "success" and r["phase_name"] == "standard" for r in rows)
    assert all(json.loads(r["data"])["completed_events"] for r in rows)
    env = {**__import__("os").environ, "HF_ENDPOINT": "http://127.0.0.1:9"}
    proc = _cli("export", str(good), "--format", "leaderboard", "--out", str(tmp_path / "lb2"), "--hf-upload", "me/x",
                env=env)
    assert proc.returncode == 2 and proc.stderr.startswith("error: --hf-upload me/x: the upload failed")
    assert len(proc.stderr.strip().splitlines()) == 1
