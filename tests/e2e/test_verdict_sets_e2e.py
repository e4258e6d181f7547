"""Re-judging is a verdict set, on a real run (issue 23's done-when): the oracle on the two-turn demo
passes; its saved ARE trace is edited so turn 2's email goes to someone else; `gaia2-runner judge`
re-judges it (a real container, ARE's own judge) and the new verdict is the one the index, the
trace page, `ls`, `compare` and `export` show, while `--verdicts original` still gives the old one.
One scenario run and one judge container: about a minute."""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "examples" / "scenarios" / "demo_multi_turn_email.json"
NAME = "demo_multi_turn_email"
WRONG = "someone.else@example.com"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=500,
        env=env,
    )


def _send_to_someone_else(path: Path) -> None:
    """Turn 2's send_email in ARE's trace goes to another address (a hard check: no LLM asked)."""
    doc = json.loads(gzip.decompress(path.read_bytes()))
    edited = 0
    for event in doc["completed_events"]:
        action = event.get("action") or {}
        if event.get("event_type") == "AGENT" and action.get("function") == "send_email":
            for item in action["args"]:
                if item["name"] == "recipients":
                    item["value"] = [WRONG] if isinstance(item["value"], list) else json.dumps([WRONG])
                    edited += 1
    assert edited == 1, "the oracle's send_email is not in the saved trace"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    return {row["scenario_id"]: row for row in csv.DictReader(path.open(encoding="utf-8"))}


def test_a_rejudged_multi_turn_run_shows_its_new_verdict_everywhere(images, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _cli("run", "--agent", "oracle", "--scenario", SCENARIO, "--output-dir", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    scenario = out / NAME
    before = (scenario / "result.json").read_bytes()
    assert json.loads(before)["success"] is True
    _send_to_someone_else(scenario / "are_trace.json.gz")

    proc = _cli(
        "judge",
        out,
        "--judge-provider",
        "openai",
        "--judge-model",
        "judge-x",
        "--judge-api-key-env",
        "REJUDGE_KEY",
        env={**os.environ, "REJUDGE_KEY": "sk-unused"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 now fail" in proc.stdout and "re-judged verdicts (openai/judge-x" in proc.stdout  # the report
    assert (scenario / "result.json").read_bytes() == before  # the original verdict stays on disk
    assert json.loads((out / "verdicts.json").read_text())["current"] == "rejudged"

    # The index (rebuilt by judge) and the trace page show the re-judge first.
    index = (out / "index.html").read_text()
    assert "verdicts shown: <b>re-judged verdicts (openai/judge-x" in index
    assert '<td class="n-pass">0</td><td class="n-fail">1</td>' in index
    page = (scenario / "trace.html").read_text()
    assert page.index('data-set="rejudged"') < page.index('data-set="original"')
    assert 'class="badge s-fail"' in page.split("</h1>")[0]

    # ls: the rate of the re-judge, and of the original when asked.
    proc = _cli("ls", out)
    assert proc.returncode == 0 and "0.0%" in proc.stdout and "re-judged verdicts" in proc.stdout, proc.stdout
    proc = _cli("ls", out, "--verdicts", "original")
    assert "100.0%" in proc.stdout and "original verdicts" in proc.stdout, proc.stdout

    # compare: the original set against the re-judge, the scenario flips.
    proc = _cli("compare", out, out, "--verdicts", "original", "--verdicts", "rejudged")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "flips: 0 fixed, 1 broke, 0 unchanged" in proc.stdout and NAME in proc.stdout

    # export: csv and jsonl carry the re-judge with the original beside it; --verdicts original.
    assert _cli("export", out, "--format", "csv", "--out", tmp_path / "now.csv").returncode == 0
    row = _rows(tmp_path / "now.csv")[NAME]
    assert (row["status"], row["success"], row["verdict_set"], row["original_success"]) == (
        "fail",
        "False",
        "rejudged",
        "True",
    )
    assert row["verdict_judge"] == "openai/judge-x" and row["reason"]  # the re-judge's reason
    assert _cli("export", out, "--format", "jsonl", "--out", tmp_path / "now.jsonl").returncode == 0
    line = json.loads((tmp_path / "now.jsonl").read_text().splitlines()[0])
    assert (line["success"], line["verdict_set"], line["original_success"]) == (False, "rejudged", True)
    assert (
        _cli(
            "export", out, "--format", "csv", "--out", tmp_path / "old.csv", "--verdicts", "original"
        ).returncode
        == 0
    )
    old = _rows(tmp_path / "old.csv")[NAME]
    assert (old["status"], old["success"], old["verdict_set"]) == ("pass", "True", "original")

    # judge --use original goes back: the index follows.
    proc = _cli("judge", out, "--use", "original")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '<td class="n-pass">1</td><td class="n-fail">0</td>' in (out / "index.html").read_text()
