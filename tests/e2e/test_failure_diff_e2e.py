"""The failure diff on real runs: ARE's judge is observed through its tracer hook, the daemon
writes what it compared (`judge_detail`), and the result, the index and the trace page say which
argument differed (real containers; the page in real Chromium)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from test_viewer_browser import browser, page  # noqa: F401 - the Chromium fixtures

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.viewer import Site

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
# Right tool, title, place and end; starts an hour early.
LATE_AGENT = """
calendar add-event --title 'Dentist appointment' \\
  --start-datetime '2024-10-03 13:00:00' --end-datetime '2024-10-03 15:00:00' \\
  --location 'Smile Dental, 12 Rue Oberkampf, Paris' >/dev/null
/opt/gaia2/venv/bin/python -m gaia2_container.runtimes.reply 'Booked.'
"""
REASON = "add_calendar_event.start_datetime: expected 2024-10-03 14:00:00, got 2024-10-03 13:00:00"


@pytest.fixture(scope="module")
def late_run(images, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("late")
    out = root / "demo_calendar_add_event"  # run_scenario writes into <output dir>/<scenario id>/
    result = run_scenario(
        SCENARIO, ORACLE_IMAGE, root, extra_env={"GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(LATE_AGENT)}"}
    )
    assert (result.status, result.success) == ("completed", False), (result.error, result.failure_reasons)
    Site(root).refresh()
    return out


def test_the_reason_names_the_argument_and_both_values(late_run: Path) -> None:
    result = json.loads((late_run / "result.json").read_text())
    assert result["failure_reasons"][0] == f"turn 1: {REASON}"
    assert result["judgment"]["reason"] == REASON
    assert "Agent did not perform" in result["judgment"]["rationale"]  # ARE's own words are kept
    details = [
        json.loads(line)
        for line in (late_run / "events.jsonl").read_text().splitlines()
        if '"judge_detail"' in line
    ]
    (detail,) = details
    failed = [o for o in detail["oracle_events"] if o["matched"] is False]
    assert failed[0]["tool"] == "CalendarApp__add_calendar_event"
    checks = failed[0]["attempts"][0]["checks"]
    bad = [c for c in checks if c["ok"] is False]
    assert bad[0]["arg"] == "start_datetime" and bad[0]["agent"] == "2024-10-03 13:00:00"
    index = (late_run.parent / "index.html").read_text()
    assert REASON in index


def test_a_missing_call_is_named(images, tmp_path: Path) -> None:
    result = run_scenario(SCENARIO, ORACLE_IMAGE, tmp_path, extra_env={"GAIA2_ORACLE_DROP_ACTION": "first"})
    assert result.success is False
    assert result.failure_reasons[0] == "turn 1: tool calls differ: add_calendar_event ×0 (expected ×1)"


@pytest.mark.browser
def test_the_trace_page_highlights_the_differing_argument(late_run: Path, page) -> None:  # noqa: F811
    page.goto((late_run / "trace.html").as_uri())
    row = page.locator("table.diff-table tr.diff-bad").first
    assert row.locator("td").first.inner_text().startswith("start_datetime")
    assert "2024-10-03 14:00:00" in row.inner_text() and "2024-10-03 13:00:00" in row.inner_text()
    color = row.locator("td").nth(2).evaluate("e => getComputedStyle(e).backgroundColor")
    assert color == "rgb(253, 232, 230)"  # the highlight, not the plain table background
    assert page.locator("table.diff-table tr.diff-bad").count() == 1  # only the start differs
