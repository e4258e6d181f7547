"""Report statistics against numbers worked out by hand.

Fixture: 2 splits, 4 scenarios, k=2 (T = success, F = failure, N = no verdict / infra error):

    split   scenario  run 1  run 2   durations (s)
    search  A         T      T       10, 20
    search  B         F      T       30, 40
    time    C         T      F       50, 60
    time    D         N      F       -,  70
"""

from __future__ import annotations

import json
import math

import pytest
from rich.console import Console

from gaia2_runner.cli.report_view import render_summary
from gaia2_runner.output.summary import sample_std, summarize, write_summary

PATTERN = {
    ("search", "A"): [(True, 10), (True, 20)],
    ("search", "B"): [(False, 30), (True, 40)],
    ("time", "C"): [(True, 50), (False, 60)],
    ("time", "D"): [(None, None), (False, 70)],
}


def record(split, scenario_id, run_index, success, total_s):
    return {
        "scenario_id": scenario_id,
        "split": split,
        "run_index": run_index,
        "success": success,
        "status": "error" if success is None else "completed",
        "timings": {"total_s": total_s},
    }


@pytest.fixture
def summary():
    records = [
        record(split, sid, i, success, dur)
        for (split, sid), runs in PATTERN.items()
        for i, (success, dur) in enumerate(runs, start=1)
    ]
    return summarize(records, pass_at=2, job_duration_s=123.4, expected_runs=8)


def approx(x):
    return pytest.approx(x, abs=1e-6)


def test_search_split(summary):
    s = summary.splits["search"]
    assert (s.scenarios, s.runs, s.verdict_runs, s.successes, s.infra_errors) == (2, 4, 4, 3, 0)
    # per run: run 1 = 1/2 = 0.5, run 2 = 2/2 = 1.0 → mean 0.75
    assert s.success_rate.per_run == [0.5, 1.0]
    assert s.success_rate.value == approx(0.75)
    # STD (n-1) = sqrt((0.25² + 0.25²) / 1) = 0.353553; SE = 0.353553 / sqrt(2) = 0.25
    assert s.success_rate.std == approx(0.353553)
    assert s.success_rate.se == approx(0.25)
    # pass@2: A and B had a success → 2/2; pass^2: only A succeeded twice → 1/2
    assert (s.pass_at_k, s.pass_at_k_rate, s.pass_hat_k, s.pass_hat_k_rate) == (2, 1.0, 1, 0.5)
    # durations 10, 20, 30, 40: mean 25, STD = sqrt((225+25+25+225)/3) = 12.909944
    assert s.avg_run_duration_s == approx(25.0)
    assert s.run_duration_std_s == approx(12.909944)


def test_time_split_counts_the_infra_error_as_a_failure(summary):
    t = summary.splits["time"]
    assert (t.scenarios, t.runs, t.verdict_runs, t.successes, t.infra_errors) == (2, 4, 3, 1, 1)
    # ARE's convention, every run counts: run 1 = 1/2 (D has no verdict: a failure), run 2 = 0/2
    assert t.success_rate.per_run == [0.5, 0.0]
    assert t.success_rate.value == approx(0.25)
    # STD = sqrt((0.25² + 0.25²) / 1) = 0.353553; SE = 0.353553 / sqrt(2) = 0.25
    assert t.success_rate.std == approx(0.353553)
    assert t.success_rate.se == approx(0.25)
    # second, over verdicts only: run 1 = 1/1 = 1.0, run 2 = 0/2 = 0.0 → mean 0.5, STD 0.707107, SE 0.5
    v = t.success_rate_verdicts_only
    assert v.per_run == [1.0, 0.0] and v.value == approx(0.5)
    assert v.std == approx(0.707107) and v.se == approx(0.5)
    # pass@2: only C → 1/2; pass^2: none
    assert (t.pass_at_k, t.pass_at_k_rate, t.pass_hat_k, t.pass_hat_k_rate) == (1, 0.5, 0, 0.0)
    # durations 50, 60, 70 (D's first run has none): mean 60, STD = sqrt((100+0+100)/2) = 10
    assert t.avg_run_duration_s == approx(60.0)
    assert t.run_duration_std_s == approx(10.0)


def test_global_macro_and_micro(summary):
    o = summary.overall
    assert (o.scenarios, o.runs, o.verdict_runs, o.successes, o.infra_errors) == (4, 8, 7, 4, 1)
    # micro per run, every run counting: run 1 = (A, C) 2 of 4 = 0.5, run 2 = (A, B) 2/4 = 0.5
    assert summary.micro.per_run == [0.5, 0.5]
    assert summary.micro.value == approx(0.5)
    assert summary.micro.std == approx(0.0) and summary.micro.se == approx(0.0)
    # verdicts only: run 1 = (A, C) 2 of 3 = 0.666667, run 2 = 2/4 = 0.5 → 0.583333
    assert o.success_rate_verdicts_only.value == approx(0.583333)
    # macro = mean of split rates = (0.75 + 0.25) / 2 = 0.5
    assert summary.macro.value == approx(0.5)
    # per run: run 1 = (0.5 + 0.5) / 2 = 0.5, run 2 = (1.0 + 0.0) / 2 = 0.5
    assert summary.macro.per_run == [0.5, 0.5]
    assert summary.macro.std == approx(0.0) and summary.macro.se == approx(0.0)
    # pass@2: A, B, C → 3/4; pass^2: A → 1/4
    assert (o.pass_at_k, o.pass_at_k_rate, o.pass_hat_k, o.pass_hat_k_rate) == (3, 0.75, 1, 0.25)
    # durations 10 … 70 step 10: mean 40, STD = sqrt((900+400+100+0+100+400+900)/6) = 21.602469
    assert o.avg_run_duration_s == approx(40.0)
    assert o.run_duration_std_s == approx(21.602469)
    assert summary.job_duration_s == 123.4
    assert summary.infra_errors == 1 and summary.missing_runs == 0 and not summary.complete


def test_one_solved_two_gave_up_is_33_percent():
    """An agent that solves 1 of 3 scenarios and gives up on the others scores 1/3, whatever way it
    gives up: an agent exit is judged (a failure), and even an infra error counts as a failure."""
    for give_up in (False, None):
        records = [
            record(None, "a", 1, True, 1.0),
            record(None, "b", 1, give_up, 1.0),
            record(None, "c", 1, give_up, 1.0),
        ]
        assert round(100 * summarize(records).overall.success_rate.value, 1) == 33.3


def test_matches_are_published_example():
    """ARE's docs: 10 scenarios, 3 runs, 'Success rate: 53.3% ± 6.7% (STD: 11.5%)', i.e. per-run
    rates 0.4, 0.6, 0.6; 'Pass@3: 6 scenarios', 'Pass^3: 4 scenarios'."""
    pattern = [[True] * 3] * 4 + [[False, True, True]] * 2 + [[False] * 3] * 4
    records = [
        record("execution", f"s{n}", i, ok, 1.0)
        for n, runs in enumerate(pattern)
        for i, ok in enumerate(runs, start=1)
    ]
    s = summarize(records, pass_at=3).splits["execution"]
    assert round(100 * s.success_rate.value, 1) == 53.3
    assert round(100 * s.success_rate.se, 1) == 6.7
    assert round(100 * s.success_rate.std, 1) == 11.5
    assert (s.pass_at_k, s.pass_hat_k) == (6, 4)


def test_no_split_single_run_and_missing(tmp_path):
    records = [record(None, "x", 1, True, 2.0), record(None, "y", 1, None, 1.0)]
    summary = summarize(records, pass_at=1, expected_runs=3)
    (name,) = summary.splits
    d = summary.splits[name]
    assert d.success_rate.value == 0.5 and d.success_rate.std == 0.0 and d.success_rate.se == 0.0
    assert d.success_rate_verdicts_only.value == 1.0
    assert summary.missing_runs == 1 and not summary.complete
    path = write_summary(summary, tmp_path / "summary.json", {"image": "img"})
    doc = json.loads(path.read_text())
    assert doc["image"] == "img" and doc["missing_runs"] == 1 and "verdict" in doc["rate_policy"]
    assert doc["overall"]["infra_errors"] == 1 and doc["complete"] is False
    assert doc["overall"]["success_rate"]["value"] == 0.5


def test_empty_and_std():
    assert summarize([], pass_at=2).micro.value is None
    assert sample_std([1.0]) == 0.0 and sample_std([]) is None
    assert sample_std([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(math.sqrt(32 / 7))


def test_render(summary):
    console = Console(record=True, width=80)  # what rich assumes in a pipe or a CI log
    console.print(render_summary(summary))
    text = console.export_text()
    assert "overall" in text and "pass@2" in text and "pass^2" in text
    assert "INCOMPLETE" in text and "verdicts only: 58.3%" in text
    assert "macro success rate: 50.0% ± 0.0% (STD 0.0%)" in text
    rows = {}
    for line in text.splitlines():
        cells = line.split()
        if cells and cells[0] in ("search", "time", "overall"):
            rows.setdefault(cells[0], []).append(cells[1:])
    # runs table: runs, infra, success rate, ± SE, STD, avg s, STD s; then scenarios, pass@2, pass^2
    assert rows["search"] == [
        ["4", "0", "75.0%", "25.0%", "35.4%", "25.0", "12.9"],
        ["2", "2", "(100.0%)", "1", "(50.0%)"],
    ]
    assert rows["time"] == [
        ["4", "1", "25.0%", "25.0%", "35.4%", "60.0", "10.0"],
        ["2", "1", "(50.0%)", "0", "(0.0%)"],
    ]
    assert rows["overall"] == [
        ["8", "1", "50.0%", "0.0%", "0.0%", "40.0", "21.6"],
        ["4", "3", "(75.0%)", "1", "(25.0%)"],
    ]
