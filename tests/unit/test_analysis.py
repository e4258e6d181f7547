"""gaia2_runner.analysis on synthetic output trees: rows, run listing, paired comparison, exports."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from gaia2_runner.analysis import COLUMNS, compare, describe, export_rows, find_output_dirs, load_rows
from gaia2_runner.errors import Gaia2Error
from viewer_synth import dataset_tree
from viewer_synth import run_tree as _tree


def test_rows_carry_verdict_tokens_tool_errors_and_simulated_time(tmp_path: Path) -> None:
    root = _tree(tmp_path / "a", {"s1": "pass", "s2": "fail", "s3": "error"})
    (root / "search" / "s2" / "events.jsonl").write_text(
        "".join(
            json.dumps(e) + "\n"
            for e in [
                {"kind": "env_event", "sim_time": 1_000_000.0, "ok": True},
                {"kind": "tool_call", "sim_time": 1_000_010.0, "ok": True},
                {"kind": "tool_call", "sim_time": 1_000_060.5, "ok": False, "error": "ValueError: x"},
            ]
        )
    )
    rows = {r.scenario_id: r for r in load_rows(root)}
    assert [rows[s].status for s in ("s1", "s2", "s3")] == ["pass", "fail", "error"]
    assert rows["s1"].success is True and rows["s2"].success is False and rows["s3"].success is None
    assert rows["s2"].tool_errors == 1 and rows["s1"].tool_errors == 0
    assert (
        rows["s2"].sim_start == 1_000_000.0
        and rows["s2"].sim_end == 1_000_060.5
        and rows["s2"].sim_elapsed_s == 60.5
    )
    assert rows["s1"].tokens_in and rows["s1"].tokens_out and rows["s1"].llm_calls == 2
    assert rows["s2"].reason == "turn 1: the agent booked the wrong day" and rows["s3"].reason
    assert all(r.split == "search" and r.run == 1 for r in rows.values())
    assert tuple(rows["s1"].to_dict()) == COLUMNS


def test_compare_counts_flips_and_gives_a_paired_standard_error(tmp_path: Path) -> None:
    a = _tree(tmp_path / "a", {"s1": "pass", "s2": "pass", "s3": "fail", "s4": "fail", "s5": "pass"})
    b = _tree(tmp_path / "b", {"s1": "pass", "s2": "fail", "s3": "pass", "s4": "error", "s6": "pass"})
    result = compare(a, b)
    # common: s1..s4; A = [1,1,0,0], B = [1,0,1,0] (error counts as failure); diffs [0,-1,1,0]
    assert result.overall.scenarios == 4 and result.overall.a == 0.5 and result.overall.b == 0.5
    assert result.overall.delta == 0.0
    assert math.isclose(result.overall.se, math.sqrt(2 / 3) / 2)
    assert [(f.scenario_id, f.direction) for f in result.flips] == [("s2", "broke"), ("s3", "fixed")]
    assert result.flips[0].b_reason == "turn 1: the agent booked the wrong day"
    assert (
        result.unchanged == 2 and result.only_a == [("search", "s5")] and result.only_b == [("search", "s6")]
    )


def test_compare_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    a = _tree(tmp_path / "a", {"s1": "pass"})
    (tmp_path / "empty").mkdir()
    with pytest.raises(Gaia2Error, match="not an output directory"):
        compare(a, tmp_path / "empty")


def test_describe_reads_config_and_recomputes_without_summary(tmp_path: Path) -> None:
    root = _tree(tmp_path / "a", {"s1": "pass", "s2": "fail", "s3": "pass", "s4": "error"})
    info = describe(root)
    # the agent kind, not the provider, in the agent's place (issue 23: a provider is not an agent)
    assert (info.agent, info.model, info.provider, info.image, info.judge) == (
        "llm",
        "gpt-x",
        "openai",
        "img",
        None,
    )
    assert info.started_at.startswith("2026-02-03") and info.runs == 4 and info.scenarios == 4
    assert info.rate == 0.5 and info.complete is False  # no summary.json: recomputed, every run counts


def test_find_output_dirs_walks_two_levels_and_lists_pass_at_k(tmp_path: Path) -> None:
    dataset_tree(tmp_path / "exp" / "k3", 4, pass_at=3)
    _tree(tmp_path / "exp" / "one", {"s1": "pass"})
    found = find_output_dirs([tmp_path])
    assert sorted(p.name for p in found) == ["k3", "one"]
    info = describe(tmp_path / "exp" / "k3")
    assert info.runs == 12 and info.scenarios == 4 and info.pass_at == 3
    with pytest.raises(Gaia2Error, match="no such directory"):
        find_output_dirs([tmp_path / "missing"])


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_writes_one_row_per_run(tmp_path: Path, fmt: str) -> None:
    root = _tree(tmp_path / "a", {"s1": "pass", "s2": "fail", "s3": "error"})
    path, count = export_rows(root, fmt)
    assert path == root / f"export.{fmt}" and count == 3
    if fmt == "csv":
        rows = list(csv.DictReader(path.open()))
        assert tuple(rows[0]) == COLUMNS and [r["status"] for r in rows] == ["pass", "fail", "error"]
        assert rows[2]["success"] == ""
    elif fmt == "jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        assert [r["success"] for r in rows] == [True, False, None]
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        assert table.column_names == list(COLUMNS) and table.column("success").to_pylist() == [
            True,
            False,
            None,
        ]


def test_export_errors_are_one_line(tmp_path: Path) -> None:
    root = _tree(tmp_path / "a", {"s1": "pass"})
    with pytest.raises(Gaia2Error, match="unknown format"):
        export_rows(root, "xlsx")
    with pytest.raises(Gaia2Error, match="does not exist"):
        export_rows(root, "csv", tmp_path / "nope" / "x.csv")
    with pytest.raises(Gaia2Error, match="not an output directory"):
        export_rows(tmp_path, "csv")
