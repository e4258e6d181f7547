"""Statistics that exist (issue 23): no `± 0.0%` where k = 1, and `compare` shows the paired
difference B - A with its 95% interval and the flip counts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from rich.console import Console

from cli_support import invoke
from gaia2_runner.analysis import compare
from gaia2_runner.cli.report_view import NO_SPREAD, rate_text, render_summary
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.layout import SUMMARY_FILE
from gaia2_runner.output.summary import Rate, summarize, t_95
from gaia2_runner.viewer import Site
from gaia2_runner.viewer.stats import summary_rows
from viewer_synth import dataset_tree, run_tree


def _record(sid: str, success: bool, run_index: int = 1) -> dict:
    return {
        "scenario_id": sid,
        "split": "search",
        "run_index": run_index,
        "success": success,
        "timings": {"total_s": 1.0},
    }


def test_t_quantiles_match_the_tables_and_approach_the_normal() -> None:
    assert t_95(1) == 12.706 and t_95(2) == 4.303 and t_95(30) == 2.042
    assert abs(t_95(31) - 2.040) < 0.001 and abs(t_95(60) - 2.000) < 0.001 and abs(t_95(120) - 1.980) < 0.001
    assert t_95(10_000) == pytest.approx(1.96, abs=0.001)
    assert all(t_95(df) > t_95(df + 1) for df in range(1, 200))  # monotone across the table's end
    with pytest.raises(ValueError):
        t_95(0)


def test_a_rate_has_a_spread_only_over_two_measured_repetitions() -> None:
    assert not Rate(0.5, 0.0, 0.0, [0.5]).has_spread
    assert not Rate(0.5, 0.0, 0.0, [0.5, None]).has_spread  # k = 2, only one repetition ran
    assert Rate(0.5, 0.0, 0.0, [0.5, 0.5]).has_spread  # a measured 0 is shown as one
    assert rate_text(Rate(0.5, 0.0, 0.0, [0.5])) == f"50.0% ({NO_SPREAD})"
    assert rate_text(Rate(0.5, 0.1, 0.05, [0.4, 0.6])) == "50.0% ± 5.0% (STD 10.0%)"


def _render(summary) -> str:
    console = Console(width=80, record=True, force_terminal=False)
    console.print(render_summary(summary))
    return console.export_text()


def test_the_report_of_one_repetition_prints_no_plus_minus() -> None:
    text = _render(
        summarize([_record("a", True), _record("b", False), _record("c", True)], pass_at=1, expected_runs=3)
    )
    assert "±" not in text and "STD 0.0%" not in text
    assert f"micro success rate: 66.7% ({NO_SPREAD})" in text and NO_SPREAD in text.split("micro")[0]
    two = _render(summarize([_record("a", True, 1), _record("a", False, 2)], pass_at=2, expected_runs=2))
    assert "± SE" in two and "50.0% ± 50.0% (STD 70.7%)" in two


def test_compare_gives_the_paired_interval_and_flip_counts(tmp_path: Path) -> None:
    states_a = {f"s{i}": "pass" if i < 8 else "fail" for i in range(10)}  # 80%
    states_b = {f"s{i}": "pass" if i not in (0, 1, 2) else "fail" for i in range(10)}  # 70%: 3 broke, 2 fixed
    result = compare(run_tree(tmp_path / "a", states_a), run_tree(tmp_path / "b", states_b))
    d = result.overall
    diffs = [-1] * 3 + [1] * 2 + [0] * 5
    se = math.sqrt(sum((x - (-0.1)) ** 2 for x in diffs) / 9) / math.sqrt(10)
    assert (d.scenarios, d.fixed, d.broke) == (10, 2, 3)
    assert d.delta == pytest.approx(-0.1) and d.se == pytest.approx(se)
    assert d.low == pytest.approx(-0.1 - 2.262 * se) and d.high == pytest.approx(-0.1 + 2.262 * se)
    out = invoke(["compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert out.exit_code == 0, out.output
    low, high = 100 * d.low, 100 * d.high
    assert f"success 80.0% → 70.0%, -10.0 points, 95% interval {low:+.1f} to {high:+.1f}" in out.output
    assert f"paired standard error {100 * se:.1f} points" in out.output
    assert "flips: 2 fixed, 3 broke, 5 unchanged; 0 only in A, 0 only in B" in out.output
    assert "± 0.0" not in out.output


def test_one_scenario_in_common_has_no_spread_and_none_is_an_error(tmp_path: Path) -> None:
    a = run_tree(tmp_path / "a", {"s1": "pass", "s2": "pass"})
    b = run_tree(tmp_path / "b", {"s1": "fail", "s3": "pass"})
    d = compare(a, b).overall
    assert (d.scenarios, d.se, d.low, d.high, d.broke) == (1, None, None, None, 1)
    out = invoke(["compare", str(a), str(b)])
    assert out.exit_code == 0 and "-100.0 points (1 scenario: no spread)" in out.output
    assert "standard error" not in out.output
    c = run_tree(tmp_path / "c", {"x": "pass"})
    with pytest.raises(Gaia2Error, match="no finished scenario in common"):
        compare(a, c)


def test_compare_per_split_table_fits_80_columns(tmp_path: Path) -> None:
    from viewer_synth import dataset_tree

    dataset_tree(tmp_path / "k3", 12, pass_at=3)
    dataset_tree(tmp_path / "k2", 12, pass_at=2, seed=3)
    out = invoke(["compare", str(tmp_path / "k3"), str(tmp_path / "k2")])
    assert out.exit_code == 0, out.output
    assert "95% interval" in out.output and "fixed" in out.output and "broke" in out.output
    assert "search " in out.output and "time " in out.output
    assert max(map(len, out.output.splitlines())) <= 80


def _index_summary_table(root: Path, summary: dict) -> str:
    """The index's summary.json table, for a run tree whose summary.json is `summary`."""
    (root / SUMMARY_FILE).write_text(json.dumps(summary))
    Site(root).refresh()
    page = (root / "index.html").read_text()
    table = page[page.index("<h3>summary.json") :]
    return table[: table.index("</table>")]


def test_the_index_prints_no_plus_minus_for_one_repetition(tmp_path: Path) -> None:
    dataset_tree(tmp_path / "k1", 2, splits=("search",))
    one = summarize([_record("a", True), _record("b", False)], pass_at=1).to_dict()
    assert one["overall"]["success_rate"]["se"] == 0.0  # summary.json holds a 0 that measures nothing
    table = _index_summary_table(tmp_path / "k1", one)
    assert f'50.0% <span class="dim small">({NO_SPREAD})</span>' in table and "±" not in table
    older = json.loads(json.dumps(one))  # a summary.json written before per_run: its pass_at decides
    del older["splits"]["search"]["success_rate"]["per_run"]
    assert [(r["se"], r["no_spread"]) for r in summary_rows(older)] == [(None, NO_SPREAD)]
    dataset_tree(tmp_path / "k2", 2, splits=("search",), pass_at=2)
    two = summarize(
        [_record("a", True), _record("b", True), _record("a", True, 2), _record("b", False, 2)], pass_at=2
    ).to_dict()
    table = _index_summary_table(tmp_path / "k2", two)
    assert "success rate ± SE</th>" in table and "75.0% ± 25.0%" in table and NO_SPREAD not in table
