"""benchmarks/bench_real_model.py's arithmetic (unit tests: no server, no container)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_real_model as bench  # noqa: E402

METRICS = """# HELP llamacpp:prompt_seconds_total Prompt process time
# TYPE llamacpp:prompt_seconds_total counter
llamacpp:prompt_seconds_total 12.5
llamacpp:tokens_predicted_total 300
llamacpp:tokens_predicted_seconds_total 7.25
"""


def test_busy_seconds_adds_prompt_and_generation_time_only():
    assert bench.busy_seconds(METRICS) == 19.75
    assert bench.busy_seconds("") == 0.0


def test_server_seconds_reads_llama_servers_timings_from_raw_responses():
    lines = [
        {"seq": 0, "raw_response": json.dumps({"choices": [], "timings": {"prompt_ms": 1500, "predicted_ms": 500}})},
        {"seq": 1, "raw_response": json.dumps({"choices": []})},  # another server: no timings
        {"seq": 2, "response": {"text": "pre-parsed"}},
        {"seq": 3, "raw_response": "data: not json"},
    ]
    assert bench.server_seconds(lines) == 2.0


def test_overhead_is_what_the_model_did_not_take_and_the_table_flags_the_target():
    fast = bench.ScenarioCost("demo_a", "pass", 3, wall_s=100.0, scenario_s=95.0, llm_s=90.0, other_model_s=6.0)
    slow = bench.ScenarioCost("demo_b", "fail", 2, wall_s=20.0, scenario_s=15.0, llm_s=10.0, other_model_s=0.0)
    assert (fast.overhead_s, fast.overhead_share) == (4.0, 0.04)
    assert slow.overhead_share == 0.5
    rows = bench.render([fast, slow]).splitlines()
    assert rows[1].split()[-1] == "ok" and rows[2].split()[-1] == "MISS"
    assert rows[3].split()[0] == "all" and "11.7 %" in rows[3]  # (4 + 10) / 120
