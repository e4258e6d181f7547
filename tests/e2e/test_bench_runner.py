"""benchmarks/bench_runner.py: its pure parts (padding, RSS parsing, targets, the 80-column report)
and, against real containers, the padded universe and the bare container."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
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


def measured(**changes) -> bench.Measured:
    values = dict(
        floor=[(0.5, 0.3), (0.7, 0.2), (0.6, 0.4)],
        small=[TIMINGS, {**TIMINGS, "total_s": 6.0}],
        universe=[{**TIMINGS, "ready_s": 3.0, "total_s": 6.7}],
        small_name="demo_email_reply",
        universe_mb=2.4,
        throughput={1: (9, 54.0), 2: (9, 30.0), 4: (9, 18.0)},
        rss={10: 100.0, 200: 104.0},
    )
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
    text = bench.render(
        measured(
            small_name="a_scenario_id_much_longer_than_any_column_should_be_" * 2,
            not_passed=[f"s{i}: error" for i in range(9)],
        )
    )
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
def test_padded_universe_passes_and_the_bare_container_answers(images, sandbox, tmp_path: Path):
    """The measuring parts on real containers (the whole `--quick` run takes ~5 minutes on a
    shared 2-core machine, too long for the suite)."""
    from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE
    from gaia2_runner.targets.resolve import scenario_ref

    demo = json.loads(bench.SMALL.read_text())
    universe = tmp_path / "universe.json"
    universe.write_text(json.dumps(bench.pad_universe(demo)))
    runner = bench.Runner(sandbox, tmp_path / "runs")
    [record] = runner.run([scenario_ref(universe, None)], concurrency=1, pass_at=1)
    assert (record["scenario_id"], record["success"], record["status"]) == (
        "demo_email_reply_universe",
        True,
        "completed",
    ), record
    assert all(record["timings"][phase] > 0 for phase in (*bench.PHASES, "total_s"))
    assert runner.not_passed == []
    assert (tmp_path / "runs" / "plan1" / "index.html").is_file()  # the CLI's observers ran

    [(start, answer)] = bench.measure_floor(sandbox, RUNTIME_BASE_IMAGE, reps=1)
    assert start > 0 and answer > 0
    assert sandbox.live_container_ids() == set()  # every container removed, floor ones too


# ---- --engines: the engines' per-scenario overhead side by side (benchmarks/bench_engines.py) ----

import bench_engines  # noqa: E402 - after bench_runner is registered under its name

OVERHEAD_ROWS = [bench_engines.FLOOR_ROW, *(label for label, _ in bench_engines.ROWS)]


def engine_numbers(engine: str, scale: float = 1.0) -> bench_engines.EngineNumbers:
    runs = [{k: v * scale * (1 + i / 10) for k, v in TIMINGS.items()} for i in range(10)]
    return bench_engines.EngineNumbers(engine, "20.10.24", [0.8 * scale, 0.9 * scale, 1.0 * scale], runs)


def test_percentile_is_a_measured_value():
    values = [float(v) for v in range(1, 11)]
    assert bench_engines.percentile(values, 90) == 9.0 and bench_engines.percentile(values, 50) == 5.0
    assert bench_engines.percentile([3.0], 90) == 3.0 and bench_engines.percentile([2.0, 1.0], 100) == 2.0
    with pytest.raises(ValueError):
        bench_engines.percentile([], 90)


def test_overhead_is_everything_but_the_scenario_itself():
    assert bench_engines.overhead(TIMINGS)["overhead_s"] == pytest.approx(5.2 - 3.0)
    assert bench_engines.overhead({"total_s": 1.0})["overhead_s"] == 1.0  # a phase never reached counts 0


def overhead_tables(text: str) -> dict[str, dict[str, tuple[float, float]]]:
    """engine -> row -> (median, p90), read back from the side-by-side report."""
    found: dict[str, dict[str, tuple[float, float]]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        engines = re.findall(r"(\S+) \S+\s+median\s+p90", line)
        for row in lines[i + 1 : i + 1 + len(OVERHEAD_ROWS)] if engines else []:
            cells = re.findall(r"([a-z][a-z ()-]*?)\s+(\d+\.\d\d)\s+(\d+\.\d\d)", row)
            assert len(cells) == len(engines), row
            for engine, (label, median, p90) in zip(engines, cells):
                found.setdefault(engine, {})[label] = (float(median), float(p90))
    return found


def test_engine_tables_sit_side_by_side_within_80_columns():
    text = bench_engines.render(
        [engine_numbers("podman"), engine_numbers("docker", 2.0)], scenarios=9, repeats=1
    )
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "9 demo scenarios x 1" in text.splitlines()[0]
    tables = overhead_tables(text)
    assert list(tables) == ["podman", "docker"] and all(list(t) == OVERHEAD_ROWS for t in tables.values())
    assert tables["podman"]["floor (bare)"] == (0.9, 1.0)
    assert tables["podman"]["ready"] == (pytest.approx(1.5 * 1.45, abs=0.01), 2.7)  # median of 10; the 9th
    assert tables["docker"]["ready"][0] == pytest.approx(2 * 1.5 * 1.45, abs=0.01)
    assert text.count("10 runs, 3 floor") == 2 and "not passed" not in text
    three = bench_engines.render([engine_numbers(e) for e in ("podman", "docker", "third")], 9, 1)
    assert max(len(line) for line in three.splitlines()) <= 80 and len(overhead_tables(three)) == 3


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_engines_overhead_side_by_side_from_one_run(request, built_images):
    """`--engines ... --quick` on every engine of this session (both on CI): one table each, every
    row measured. The images are built first, so the benchmark only measures."""
    from conftest import chosen_engines

    engines = chosen_engines(request.config)
    for engine in engines:
        built_images(engine)
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "bench_runner.py"),
            "--engines",
            ",".join(engines),
            "--quick",
        ],
        capture_output=True,
        text=True,
        timeout=540,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert max(len(line) for line in proc.stdout.splitlines()) <= 80, proc.stdout
    tables = overhead_tables(proc.stdout)
    # Each engine without the warm pool (the previous design), then with it.
    assert list(tables) == [label for e in engines for label in (e + bench_engines.COLD, e)], proc.stdout
    for engine, rows in tables.items():
        assert list(rows) == OVERHEAD_ROWS, proc.stdout
        assert all(0 < median <= p90 for median, p90 in rows.values()), (engine, rows)
    runs = bench_engines.QUICK_SCENARIOS * bench_engines.QUICK_REPEATS
    counts = re.findall(rf"\b{runs} runs, {bench_engines.QUICK_FLOOR_REPS} floor\b", proc.stdout)
    assert len(counts) == 2 * len(engines), proc.stdout  # every run passed (none "not passed")
    for engine in engines:  # the warm starts' targets, checked on each engine (the pass: 4 scenarios)
        assert re.search(
            rf"^{engine}: ready \d+\.\d\d<=0\.8 (ok|MISS), small run .* 4 demo \d", proc.stdout, re.M
        )


def test_warm_start_targets_are_checked_on_each_engine_with_the_pool():
    fast = {"start_s": 0.05, "ready_s": 0.5, "run_s": 0.1, "collect_s": 0.1, "total_s": 0.9}
    warm = bench_engines.EngineNumbers("podman", "4.3.1", [0.3, 0.3], [fast] * 3, pass_s=9.0)
    cold = bench_engines.EngineNumbers("podman-cold", "4.3.1", [0.3, 0.3], [TIMINGS] * 3, pass_s=30.0)
    text = bench_engines.render([cold, warm], scenarios=9, repeats=1)
    assert text.splitlines()[-1] == "podman: ready 0.50<=0.8 ok, small run 0.90<=1.10 ok, 9 demo 9.0<=12 ok"
    assert "podman-cold:" not in text  # the previous design is shown, not held to the new targets
    slow = bench_engines.EngineNumbers("docker", "20.10", [0.5], [TIMINGS], pass_s=13.0)
    line = bench_engines.target_line(slow, 9)
    assert line.count("MISS") == 3 and line.startswith("docker: ready 1.50<=0.8 MISS")
    assert bench_engines.target_line(warm, 4).endswith("4 demo 9.0")  # --quick: no 12 s target
