"""`gaia2-runner judge` on real runs of every kind (single and multi-turn, ENV event, Files app): ARE's
offline judge over the ARE trace each run saved. An
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
# One of each kind `judge` must handle: single turn, multi-turn, an ENV event, the Files app.
DEMOS = (
    "demo_calendar_add_event",
    "demo_contacts_update_phone",
    "demo_multi_turn_email",
    "demo_env_message_pickup",
    "demo_files_organize",
)
SECRET = "sk-rejudge-secret-7f3a91c2"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=500,
        env=env,
    )


def _edit_trace(path: Path, function: str, arg: str, value: str) -> None:
    doc = json.loads(gzip.decompress(path.read_bytes()))
    for event in doc["completed_events"]:
        action = event.get("action") or {}
        if event.get("event_type") == "AGENT" and action.get("function") == function:
            for item in action["args"]:
                if item["name"] == arg:
                    item["value"] = value
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))


def _drop_call(path: Path, function: str) -> None:
    """The run as if the agent had never made this call (ARE's trace without its completed event)."""
    doc = json.loads(gzip.decompress(path.read_bytes()))
    kept = [
        e
        for e in doc["completed_events"]
        if not (e.get("event_type") == "AGENT" and (e.get("action") or {}).get("function") == function)
    ]
    assert len(kept) == len(doc["completed_events"]) - 1
    doc["completed_events"] = kept
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))


def test_rejudging_keeps_a_verdict_and_changes_an_edited_one(images, tmp_path: Path) -> None:
    demo_split(tmp_path / "dataset", DEMOS, "execution")
    out = tmp_path / "out"
    proc = _cli(
        "run-dataset",
        "--dataset-root",
        str(tmp_path / "dataset"),
        "--output-dir",
        str(out),
        "--concurrency",
        "2",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calendar = out / "execution" / "demo_calendar_add_event"
    before = (calendar / "result.json").read_bytes()
    _edit_trace(calendar / "are_trace.json.gz", "add_calendar_event", "start_datetime", "2024-10-03 09:00:00")
    _drop_call(out / "execution" / "demo_multi_turn_email" / "are_trace.json.gz", "send_email")  # turn 2's

    env = {**os.environ, "REJUDGE_KEY": SECRET}
    proc = _cli(
        "judge",
        str(out),
        "--judge-provider",
        "openai",
        "--judge-model",
        "judge-x",
        "--judge-api-key-env",
        "REJUDGE_KEY",
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 now fail, 3 same" in proc.stdout
    assert (
        "now fail execution/demo_calendar_add_event: add_calendar_event.start_datetime: "
        "expected 2024-10-03 14:00:00, got 2024-10-03 09:00:00"
    ) in proc.stderr
    assert (
        "now fail execution/demo_multi_turn_email: tool calls differ: send_email ×0 (expected ×1)"
        in proc.stderr
    )
    multi = json.loads((out / "execution" / "demo_multi_turn_email" / "rejudged.json").read_text())
    assert [t["turn_number"] for t in multi["judge_details"]] == [1, 2]  # ARE validated turn 1, then turn 2
    assert [t["success"] for t in multi["judge_details"]] == [True, False]
    assert (calendar / "result.json").read_bytes() == before  # the old verdict stays as it was
    rejudged = json.loads((calendar / "rejudged.json").read_text())
    assert rejudged["success"] is False and rejudged["previous_success"] is True
    assert rejudged["judge_details"][0]["reason"].startswith("add_calendar_event.start_datetime")
    for name in ("demo_contacts_update_phone", "demo_env_message_pickup", "demo_files_organize"):
        kept = json.loads((out / "execution" / name / "rejudged.json").read_text())
        assert kept["success"] is True and kept["previous_success"] is True, (name, kept.get("error"))
    summary = json.loads((out / "rejudge_summary.json").read_text())
    assert summary["counts"] == {"now fail": 2, "same": 3} and summary["judge_model"] == "judge-x"
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            assert SECRET.encode() not in data, path


def test_judge_refuses_a_directory_without_traces(tmp_path: Path) -> None:
    proc = _cli("judge", str(tmp_path))
    assert (
        proc.returncode == 2
        and proc.stderr.startswith("error: ")
        and "not an output directory" in proc.stderr
    )
    assert proc.stderr.count("\n") == 1  # one line (require_run), before any image work
