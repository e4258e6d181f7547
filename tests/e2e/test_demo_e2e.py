"""`demo` takes the one run path: concurrency, the progress display, run_config.json,
results.jsonl, summary.json and the report, like run-dataset (real containers), on each engine;
and its output, as it is, in the viewer (real Chromium)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_viewer_browser import browser, page, visible_ids  # noqa: F401 - the Chromium fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
DEMOS = sorted(p.stem for p in (REPO / "examples" / "scenarios").glob("*.json"))


@pytest.fixture(scope="module")
def demo_run(engine: str, images, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One `demo --concurrency 4` on the test's engine (it is $GAIA2_ENGINE for the subprocess):
    its output directory and terminal output."""
    out = tmp_path_factory.mktemp(f"demo-{engine}") / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", "demo", "--concurrency", "4", "--output-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=500,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out, proc.stdout


@pytest.mark.both_engines
def test_demo_with_concurrency_writes_the_run_record(engine: str, demo_run: tuple[Path, str]) -> None:
    out, stdout = demo_run
    record = json.loads((out / "run_config.json").read_text())
    assert (
        record["command"] == "demo" and record["finished_at"] and record["config"]["run"]["concurrency"] == 4
    )
    assert record["engine"]["engine"] == engine, record.get("engine")  # ran where the test said
    assert sorted(s["scenario_id"] for s in record["scenarios"]) == DEMOS
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["scenario_id"] for r in results) == DEMOS and all(r["success"] is True for r in results)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["overall"]["success_rate"]["value"] == 1.0
    assert all((out / name / "result.json").is_file() for name in DEMOS)  # no split directory for demo
    for name in DEMOS:  # every phase of the per-scenario overhead was measured
        timings = json.loads((out / name / "result.json").read_text())["timings"]
        assert all(timings[phase] > 0 for phase in ("start_s", "ready_s", "run_s", "collect_s")), (
            name,
            timings,
        )
    assert "gaia2-runner report" in stdout and (out / "index.html").is_file()


@pytest.mark.both_engines
@pytest.mark.browser
def test_demo_output_in_the_viewer(demo_run: tuple[Path, str], page) -> None:  # noqa: F811
    """The index lists every demo scenario as passed; a trace page shows the oracle's tool calls."""
    out, _ = demo_run
    page.goto((out / "index.html").as_uri())
    assert sorted(visible_ids(page)) == DEMOS
    page.select_option("#status-filter", "pass")
    assert sorted(visible_ids(page)) == DEMOS
    page.select_option("#status-filter", "")
    page.click("a[href='./demo_calendar_add_event/trace.html']")
    page.wait_for_selector("details.tool")
    body = page.inner_text("body")
    assert "add_calendar_event" in body and "send_message_to_user" in body
