"""`gaia2-runner judge` on real runs: ARE's offline judge over the ARE trace each run saved. An
untouched run keeps its verdict; a trace whose agent event is edited gets a new verdict beside the
old one, with the failure diff (real containers)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_support import demo_split

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
DEMOS = ("demo_calendar_add_event", "demo_contacts_update_phone")
SECRET = "sk-rejudge-secret-7f3a91c2"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gaia2_runner.cli", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=500, env=env)


def _edit_trace(path: Path, function: str, arg: str, value: str) -> None:
    doc = json.loads(gzip.decompress(path.read_bytes()))
    for event in doc["completed_events"]:
        action = event.get("action") or {}
        if event.get("event_type") == "AGENT" and action.get("function") == function:
            for item in action["args"]:
                if item["name"] == arg:
                    item["value"] = value
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))


def test_rejudging_keeps_a_verdict_and_changes_an_edited_one(images, tmp_path: Path) -> None:
    demo_split(tmp_path / "dataset", DEMOS, "execution")
    out = tmp_path / "out"
    proc = _cli("run-dataset", "--dataset-root", str(tmp_path / "dataset"), "--output-dir", str(out), "--concurrency", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calendar = out / "execution" / "demo_calendar_add_event"
    before = (calendar / "result.json").read_bytes()
    _edit_trace(calendar / "are_trace.json.gz", "add_calendar_event", "start_datetime", "2024-10-03 09:00:00")

    env = {**os.environ, "REJUDGE_KEY": SECRET}
    proc = _cli("judge", str(out), "--judge-provider", "openai", "--judge-model", "judge-x",
                "--judge-api-key-env", "REJUDGE_KEY", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 now fail, 1 same" in proc.stdout
    assert ("now fail execution/demo_calendar_add_event: add_calendar_event.start_datetime: "
            "expected 2024-10-03 14:00:00, got 2024-10-03 09:00:00") in proc.stderr
    assert (calendar / "result.json").read_bytes() == before  # the old verdict stays as it was
    rejudged = json.loads((calendar / "rejudged.json").read_text())
    assert rejudged["success"] is False and rejudged["previous_success"] is True
    assert rejudged["judge_details"][0]["reason"].startswith("add_calendar_event.start_datetime")
    kept = json.loads((out / "execution" / "demo_contacts_update_phone" / "rejudged.json").read_text())
    assert kept["success"] is True and kept["previous_success"] is True
    summary = json.loads((out / "rejudge_summary.json").read_text())
    assert summary["counts"] == {"now fail": 1, "same": 1} and summary["judge_model"] == "judge-x"
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            assert SECRET.encode() not in data, path


def test_judge_refuses_a_directory_without_traces(tmp_path: Path) -> None:
    proc = _cli("judge", str(tmp_path))
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "to re-judge" in proc.stderr
