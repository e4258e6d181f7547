"""benchmarks/bench_probe.py: its --quick run over real HTTP on 127.0.0.1 (the fake provider, a relay
with and without the probe) and its verdict, which must catch a probe an honest run sent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import bench_probe as bench

REPO = Path(__file__).resolve().parents[2]


def row(lines: list[str], label: str) -> list[str]:
    """The cells after a table row's label."""
    found = [line for line in lines if line.startswith(label)]
    assert len(found) == 1, (label, lines)
    return found[0][len(label) :].split()


def test_quick_run_sends_no_probe_for_honest_calls_and_a_bounded_few_for_refusals():
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(str(REPO / p) for p in ("containers", "tests/support")),
    }
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_probe.py"), "--quick"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, done.stdout
    head, honest, refused, verdict = done.stdout.strip().split("\n\n")  # the report's four parts
    calls, refusals, windows = bench.QUICK["calls"], bench.QUICK["refusals"], bench.QUICK["windows"]
    assert head.startswith(f"provider probe: {calls} honest calls per design, {refusals} refusals")
    honest_rows = honest.splitlines()
    assert row(honest_rows, "honest run") == ["calls", "median", "ms", "p90", "ms", "probes", "sent"]
    for label in (bench.NEW, bench.OLD):
        count, median, p90, probes = row(honest_rows, label)
        assert (count, probes) == (str(calls), "0") and 0 < float(median) <= float(p90), done.stdout
    assert all(float(x) > 0 for x in row(honest_rows, "ratio new / previous"))
    refused_rows = refused.splitlines()
    assert row(refused_rows, "hostile run")[:4] == ["refusals", "suspected", "probes", "bound"]
    new, old = row(refused_rows, bench.NEW), row(refused_rows, bench.OLD)
    assert new[:2] == old[:2] == [str(refusals), str(refusals)]  # each refusal a suspicion
    assert 1 <= int(new[2]) <= int(new[3]) == windows + 1 and new[-1] == "none", done.stdout
    assert old[2:4] == ["0", "-"] and old[-1] == "none"
    verdict = " ".join(verdict.split())  # wrapped to 80 columns
    assert verdict.startswith("verdict: ok: honest run 0 probes;") and "timing not judged" in verdict


def hostile(probes: int, bound: int | None = 3, fault: str | None = None) -> bench.Hostile:
    return bench.Hostile(bench.NEW if bound else bench.OLD, 12, 12, probes, bound, [0.004, 0.005], fault)


def test_the_verdict_catches_a_probe_too_many_and_never_judges_timing():
    fast, slow = bench.Honest(bench.NEW, [0.004] * 4, 0), bench.Honest(bench.OLD, [0.002] * 4, 0)
    ok, line = bench.verdict([fast, slow], [hostile(2), hostile(0, None)])
    assert ok and "x2.00" in line and "beyond noise" in line  # a slower run is printed, not failed
    assert not bench.verdict([bench.Honest(bench.NEW, [0.004], 1), slow], [hostile(2)])[0]
    assert not bench.verdict([fast, slow], [hostile(4)])[0]  # past one per window + one
    assert not bench.verdict([fast, slow], [hostile(0)])[0]  # suspicions nobody checked
    assert not bench.verdict([fast, slow], [hostile(2, fault="configuration fault: x")])[0]
    text = bench.wrap(bench.render([fast, slow], [hostile(2), hostile(0, None)], windows=2))
    assert max(len(line) for line in text.splitlines()) <= 80 and "FAULT" not in text
