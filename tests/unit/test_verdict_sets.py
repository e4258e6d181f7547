"""Re-judging as a verdict set (output/read/verdicts.py): after `judge` the re-judge is current and
every reader shows it (rows, ls, compare, export, the viewer's index and trace pages, judge's
report); `--verdicts` asks for the other set; `judge --use` switches back. Synthetic run trees."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cli_support import assert_one_error_line, invoke
from gaia2_runner.analysis import COLUMNS, compare, describe, load_rows
from gaia2_runner.output.read.record import RunRecord
from gaia2_runner.output.read.verdicts import ORIGINAL, REJUDGED, choose, current_of, use
from gaia2_runner.viewer import Site
from viewer_synth import rejudge_tree, run_tree

NEW_COLUMNS = ("verdict_set", "verdict_judge", "verdict_at", "original_success", "verdict_note")
WHEN = "2026-11-26T10:00:00+00:00"


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """s1 pass → re-judged fail, s2 fail → pass, s3 no verdict (not re-judged), s4 pass whose
    re-judge failed, s5 pass → pass."""
    root = run_tree(tmp_path / "out", {"s1": "pass", "s2": "fail", "s3": "error", "s4": "pass", "s5": "pass"})
    return rejudge_tree(
        root, {"s1": False, "s2": True, "s4": "the judge's model refused", "s5": True}, when=WHEN
    )


def _by_id(rows: list[RunRecord]) -> dict[str, RunRecord]:
    return {r.scenario_id: r for r in rows}


def test_rows_carry_the_current_set_and_the_original_beside_it(out: Path) -> None:
    rows = _by_id(load_rows(out))
    assert (rows["s1"].status, rows["s1"].success, rows["s1"].original_success) == ("fail", False, True)
    assert rows["s1"].reason == "s1: re-judged wrong" and rows["s1"].verdict_set == REJUDGED
    assert (rows["s1"].verdict_judge, rows["s1"].verdict_at) == ("openai/judge-x", WHEN)
    assert (rows["s2"].status, rows["s2"].original_success, rows["s2"].reason) == ("pass", False, "")
    assert rows["s5"].verdict_set == REJUDGED and rows["s5"].success is True


def test_runs_the_re_judge_does_not_cover_keep_their_original_and_say_why(out: Path) -> None:
    rows = _by_id(load_rows(out))
    s3, s4 = rows["s3"], rows["s4"]
    assert (s3.verdict_set, s3.status, s3.original_success) == (ORIGINAL, "error", None)
    assert "not re-judged" in s3.verdict_note
    assert (s4.verdict_set, s4.status) == (ORIGINAL, "pass")
    assert "the re-judge failed: the judge's model refused" in s4.verdict_note


def test_a_run_without_a_verdict_of_the_agents_is_never_turned_into_one(tmp_path: Path) -> None:
    """A crash or a provider fault has no verdict; a re-judge of its trace must not score it."""
    root = run_tree(tmp_path / "out", {"s1": "error"})
    result = root / "search" / "s1" / "result.json"
    result.write_text(json.dumps({**json.loads(result.read_text()), "status": "crashed"}))
    rejudge_tree(root, {"s1": False})
    row = load_rows(root)[0]
    assert (row.status, row.success, row.verdict_set) == ("error", None, ORIGINAL)
    assert "the run ended crashed" in row.verdict_note


def test_a_run_redone_after_the_re_judge_keeps_its_new_verdict(out: Path) -> None:
    """--retry rewrites result.json; the rejudged.json beside it judged the run before."""
    result = out / "search" / "s1" / "result.json"
    result.write_text(
        json.dumps({**json.loads(result.read_text()), "finished_at": "2026-11-27T00:00:00+00:00"})
    )
    row = _by_id(load_rows(out))["s1"]
    assert (row.status, row.verdict_set) == ("pass", ORIGINAL) and "redone" in row.verdict_note


def test_original_asked_for_gives_the_run_s_own_verdicts(out: Path) -> None:
    rows = _by_id(load_rows(out, ORIGINAL))
    assert {k: r.status for k, r in rows.items()} == {
        "s1": "pass",
        "s2": "fail",
        "s3": "error",
        "s4": "pass",
        "s5": "pass",
    }
    assert all(
        r.verdict_set == ORIGINAL and r.original_success is None and not r.verdict_note for r in rows.values()
    )


def test_without_a_re_judge_the_original_is_current_and_rejudged_is_an_error(tmp_path: Path) -> None:
    root = run_tree(tmp_path / "out", {"s1": "pass"})
    assert choose(root.resolve()).name == ORIGINAL and current_of(root.resolve()) == ORIGINAL
    assert load_rows(root)[0].verdict_set == ORIGINAL
    assert_one_error_line(
        invoke(["export", str(root), "--format", "csv", "--verdicts", "rejudged"]), "was never re-judged"
    )
    assert_one_error_line(
        invoke(["ls", str(root), "--verdicts", "newest"]), "use one of current, original, rejudged"
    )


def test_ls_shows_the_rate_of_the_chosen_set_and_names_it(out: Path) -> None:
    # original: s1, s4, s5 pass of 5; re-judged: s2, s4 (kept), s5 pass of 5 (same rate, other runs)
    assert describe(out).rate == pytest.approx(0.6) and describe(out).verdicts.name == REJUDGED
    (out / "search" / "s5" / "rejudged.json").write_text(
        json.dumps(
            {
                "success": False,
                "reason": "x",
                "rationale": "",
                "judge_details": [],
                "error": None,
                "judged_at": WHEN,
            }
        )
    )
    assert describe(out).rate == pytest.approx(0.4)  # from the rows, not summary.json
    assert describe(out, ORIGINAL).rate == pytest.approx(0.6)
    result = invoke(["ls", str(out)])
    assert result.exit_code == 0 and "40.0%" in result.output and "re-judged verdicts" in result.output
    assert "openai/judge-x, 2026-11-26" in " ".join(result.output.split())
    result = invoke(["ls", str(out), "--verdicts", "original"])
    assert "60.0%" in result.output and "original verdicts (a re-judge exists)" in " ".join(
        result.output.split()
    )


def test_compare_the_original_set_with_the_re_judge_shows_the_flips(out: Path) -> None:
    result = compare(out, out, (ORIGINAL, REJUDGED))
    assert {(f.scenario_id, f.direction) for f in result.flips} == {("s1", "broke"), ("s2", "fixed")}
    assert (result.verdicts_a.name, result.verdicts_b.name) == (ORIGINAL, REJUDGED)
    assert compare(out, out).flips == []  # one set for both sides: nothing moves
    shown = invoke(["compare", str(out), str(out), "--verdicts", "original", "--verdicts", "rejudged"])
    assert shown.exit_code == 0, shown.output
    assert "flips: 1 fixed, 1 broke, 3 unchanged" in shown.output and "search/s1" in shown.output
    assert_one_error_line(
        invoke(["compare", str(out), str(out)] + ["--verdicts", "original"] * 3), "give it once"
    )


def test_export_appends_the_verdict_set_columns(out: Path, tmp_path: Path) -> None:
    assert COLUMNS[-len(NEW_COLUMNS) :] == NEW_COLUMNS
    assert invoke(["export", str(out), "--format", "csv", "--out", str(tmp_path / "x.csv")]).exit_code == 0
    rows = {r["scenario_id"]: r for r in csv.DictReader((tmp_path / "x.csv").open())}
    assert tuple(rows["s1"])[-len(NEW_COLUMNS) :] == NEW_COLUMNS
    assert (rows["s1"]["success"], rows["s1"]["verdict_set"], rows["s1"]["original_success"]) == (
        "False",
        "rejudged",
        "True",
    )
    assert rows["s1"]["verdict_judge"] == "openai/judge-x" and rows["s1"]["verdict_at"] == WHEN
    assert rows["s3"]["verdict_set"] == "original" and "not re-judged" in rows["s3"]["verdict_note"]
    assert (
        invoke(
            [
                "export",
                str(out),
                "--format",
                "jsonl",
                "--out",
                str(tmp_path / "x.jsonl"),
                "--verdicts",
                "original",
            ]
        ).exit_code
        == 0
    )
    lines = {d["scenario_id"]: d for d in map(json.loads, (tmp_path / "x.jsonl").read_text().splitlines())}
    assert (lines["s1"]["success"], lines["s1"]["verdict_set"], lines["s1"]["original_success"]) == (
        True,
        "original",
        None,
    )


def test_parquet_types_the_original_verdict_as_a_bool(out: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    assert (
        invoke(["export", str(out), "--format", "parquet", "--out", str(tmp_path / "x.parquet")]).exit_code
        == 0
    )
    table = pq.read_table(tmp_path / "x.parquet")
    assert str(table.schema.field("original_success").type) == "bool"
    assert table.column_names[-len(NEW_COLUMNS) :] == list(NEW_COLUMNS)


def test_the_index_and_trace_pages_show_the_current_set_and_the_other(out: Path) -> None:
    Site(out).refresh()
    index = (out / "index.html").read_text()
    assert 'id="verdict-set"' in index and "re-judged verdicts (openai/judge-x, 2026-11-26)" in index
    assert "recomputed from the re-judged verdicts" in index  # the summary table is not summary.json's
    page = (out / "search" / "s1" / "trace.html").read_text()
    shown, other = page.index('data-set="rejudged"'), page.index('data-set="original"')
    assert shown < other and "s1: re-judged wrong" in page and "openai/judge-x" in page and WHEN in page
    assert "the run's own judgment (original)" in page
    never = (out / "search" / "s3" / "trace.html").read_text()
    assert "not re-judged" in never


def test_the_viewer_asked_for_the_original_shows_it_and_the_re_judge_beside_it(out: Path) -> None:
    Site(out, ORIGINAL).refresh()
    assert "verdicts shown: <b>original verdicts (a re-judge exists)" in (out / "index.html").read_text()
    page = (out / "search" / "s1" / "trace.html").read_text()
    assert page.index('data-set="original"') < page.index('data-set="rejudged"')


def test_judge_use_switches_the_current_set_and_the_pages_follow(out: Path) -> None:
    """The cached rows were read with the re-judge: switching must redraw every row, not reuse them."""
    assert invoke(["view", "--output-dir", str(out)]).exit_code == 0
    assert 'class="badge s-fail"' in (out / "search" / "s1" / "trace.html").read_text().split("</h1>")[0]
    result = invoke(["judge", str(out), "--use", "original"])
    assert result.exit_code == 0, result.output
    assert "original verdicts (a re-judge exists)" in result.output and "gaia2-runner report" in result.output
    assert current_of(out.resolve()) == ORIGINAL and load_rows(out)[0].verdict_set == ORIGINAL
    assert "verdicts shown: <b>original verdicts" in (out / "index.html").read_text()
    assert 'class="badge s-pass"' in (out / "search" / "s1" / "trace.html").read_text().split("</h1>")[0]
    assert invoke(["judge", str(out), "--use", "rejudged"]).exit_code == 0
    assert current_of(out.resolve()) == REJUDGED
    use(out.resolve(), ORIGINAL)  # switched behind the viewer's back: a fresh process's cache is stale
    Site(out).refresh()
    assert 'class="badge s-pass"' in (out / "search" / "s1" / "trace.html").read_text().split("</h1>")[0]
    assert_one_error_line(invoke(["judge", str(out), "--use", "latest"]), "--use latest")


def test_judge_use_rejudged_where_none_exists_is_an_error(tmp_path: Path) -> None:
    root = run_tree(tmp_path / "out", {"s1": "pass"})
    assert_one_error_line(invoke(["judge", str(root), "--use", "rejudged"]), "was never re-judged")
    assert not (root / "verdicts.json").exists()
