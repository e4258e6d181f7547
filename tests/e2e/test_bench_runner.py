"""benchmarks/bench_runner.py: its pure parts (padding, RSS parsing, targets, the 80-column report)
and, against real containers, the padded universe and the bare container."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("bench_runner", REPO / "benchmarks" / "bench_runner.py")
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_runner"] = bench  # dataclasses look their module up there
spec.loader.exec_module(bench)

TIMINGS = {"start_s": 0.5, "ready_s": 1.5, "run_s": 3.0, "collect_s": 0.2, "total_s": 5.2}


def measured(**changes) -> "bench.Measured":
    values = dict(floor=[(0.5, 0.3), (0.7, 0.2), (0.6, 0.4)], small=[TIMINGS, {**TIMINGS, "total_s": 6.0}],
                  universe=[{**TIMINGS, "ready_s": 3.0, "total_s": 6.7}], small_name="demo_email_reply",
                  universe_mb=2.4, throughput={1: (9, 54.0), 2: (9, 30.0), 4: (9, 18.0)},
                  rss={10: 100.0, 200: 104.0})
    values.update(changes)
    return bench.Measured(**values)


def test_rss_is_read_from_proc_status():
    text = "Name:\tpython\nVmPeak:\t  300000 kB\nVmRSS:\t   51200 kB\nThreads:\t3\n"
    assert bench.rss_mb(text) == 50.0
    assert bench.rss_mb(Path("/proc/self/status").read_text()) > 1
    with pytest.raises(ValueError):
        bench.rss_mb("Name:\tx\n")


def test_phase_medians_take_each_column_alone():
    runs = [TIMINGS, {**TIMINGS, "ready_s": 9.0, "total_s": 1.0}, {**TIMINGS, "ready_s": 2.0}]
    med = bench.phase_medians(runs)
    assert med["ready_s"] == 2.0 and med["total_s"] == 5.2 and med["start_s"] == 0.5


def test_targets_pass_and_miss_at_their_limits():
    ok = bench.check_targets(floor_s=2.0, small_s=5.0, universe_s=8.0, rss={10: 100.0, 200: 110.0})
    assert [t.ok for t in ok] == [True, True, True]  # 5 <= 2*2+1, 8 <= 5+3, +10 % is still flat
    miss = bench.check_targets(floor_s=2.0, small_s=5.01, universe_s=8.02, rss={10: 100.0, 30: 89.0})
    assert [t.ok for t in miss] == [False, False, False]
    assert miss[0].limit == "5.00 s" and miss[2].measured == "-11.0 %" and "10 -> 30" in miss[2].name


def test_report_fits_80_columns_and_names_every_number():
    text = bench.render(measured(small_name="a_scenario_id_much_longer_than_any_column_should_be_" * 2,
                                 not_passed=[f"s{i}: error" for i in range(9)]))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "bare container (floor)" in text and "universe 2.4 MB" in text
    floor_line = next(line for line in text.splitlines() if line.startswith("bare container"))
    assert floor_line.split()[-2:] == ["0.90", "1.0"]  # median of 0.8, 0.9 and 1.0
    assert "10.0" in text  # 9 runs in 54 s at concurrency 1
    assert text.count(" ok") == 2 and text.count("MISS") == 1  # 5.6 s > 2 x 0.9 + 1 s; 6.7 <= 5.6 + 3; +4 %
    assert "warning: 9 run(s) did not pass" in text


def test_table_cuts_only_the_first_column():
    text = bench.table(["name", "value"], [["x" * 200, "12.50"]], width=40)
    assert len(text.splitlines()[1]) <= 40 and text.splitlines()[1].endswith("12.50")
    assert "…" in text


def test_padded_universe_is_large_and_keeps_the_task():
    demo = json.loads((REPO / "examples" / "scenarios" / "demo_email_reply.json").read_text())
    padded = bench.pad_universe(demo)
    assert len(json.dumps(padded)) >= 2 << 20
    assert padded["events"] == demo["events"]  # the oracle's actions and their ids are untouched
    assert padded["metadata"]["definition"]["scenario_id"] == "demo_email_reply_universe"
    states = {a["class_name"]: a["app_state"] for a in padded["apps"]}
    inbox = states["EmailClientV2"]["folders"]["INBOX"]["emails"]
    ids = [e["email_id"] for e in inbox]
    assert len(ids) == len(set(ids)) > 1000 and ids[0] == "email-offsite-rsvp"
    assert len(states["ContactsApp"]["contacts"]) > 1000
    assert demo["apps"][3]["app_state"]["folders"]["INBOX"]["emails"][-1]["email_id"] == "email-newsletter"
    with pytest.raises(ValueError):
        bench.pad_universe({"apps": [], "events": [], "metadata": {"definition": {}}})


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_padded_universe_passes_and_the_bare_container_answers(images, backend, tmp_path: Path):
    """The measuring parts on real containers (the whole `--quick` run takes ~5 minutes on a
    shared 2-core machine, too long for the suite)."""
    from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE
    from gaia2_runner.targets.resolve import scenario_ref

    demo = json.loads(bench.SMALL.read_text())
    universe = tmp_path / "universe.json"
    universe.write_text(json.dumps(bench.pad_universe(demo)))
    runner = bench.Runner(backend, tmp_path / "runs")
    [record] = runner.run([scenario_ref(universe, None)], concurrency=1, pass_at=1)
    assert (record["scenario_id"], record["success"], record["status"]) == \
        ("demo_email_reply_universe", True, "completed"), record
    assert all(record["timings"][phase] > 0 for phase in (*bench.PHASES, "total_s"))
    assert runner.not_passed == []
    assert (tmp_path / "runs" / "plan1" / "index.html").is_file()  # the CLI's observers ran

    [(start, answer)] = bench.measure_floor(backend, RUNTIME_BASE_IMAGE, reps=1)
    assert start > 0 and answer > 0
    assert backend.live_container_ids() == set()  # every container removed, floor ones too
