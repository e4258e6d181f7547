"""benchmarks/bench_real_model.py's arithmetic (unit tests: no server, no container)."""

from __future__ import annotations

import bench_real_model as bench  # noqa: E402


def test_the_runners_share_is_what_the_model_did_not_take_and_the_table_flags_the_target():
    fast = bench.ScenarioCost("demo_a", "pass", 3, wall_s=100.0, scenario_s=95.0, llm_s=96.0)
    slow = bench.ScenarioCost("demo_b", "fail (timeout)", 2, wall_s=20.0, scenario_s=15.0, llm_s=10.0)
    assert (fast.overhead_s, fast.overhead_share) == (4.0, 0.04)
    assert slow.overhead_share == 0.5
    rows = bench.render([fast, slow]).splitlines()
    assert rows[1].split()[-1] == "ok" and rows[2].split()[-1] == "MISS"
    assert rows[3].split()[0] == "all" and "11.7 %" in rows[3]  # (4 + 10) / 120
