"""Per-scenario overhead of each container engine, side by side (`bench_runner.py --engines ...`).

One invocation measures every engine named, one after the other on the same machine, so the
tables compare like with like. For each engine:

- floor: create + start + first HTTP answer of a bare container (bench_runner.measure_floor);
- the oracle on the demo scenarios at concurrency 1 (no contention), each run's result.json
  `timings`: start (create, copy the scenario in, start), ready (until the daemon answers),
  collect (output archive and logs), and the overhead around the scenario itself: total - run
  (create -> ready, then collected and removed); once with the warm pool (the default) and once
  without it (`<engine>-cold`: the previous design, every container started with its scenario);

as the median and the 90th percentile (nearest rank) over the runs, then the warm starts' targets
(issue 34): ready <= 0.8 s, the small oracle run (bench_runner.SMALL, whole: create to removed)
<= 2 x floor + 0.5 s, a pass over the 9 demo
scenarios at concurrency 1 <= 12 s (full mode only: --quick runs fewer).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_runner import DEMO_DIR, SMALL, WIDTH, Runner, log, measure_floor, table

# (row label, result.json timings key); "overhead" is computed: total_s - run_s.
ROWS = (
    ("start (create)", "start_s"),
    ("ready", "ready_s"),
    ("collect", "collect_s"),
    ("overhead (total-run)", "overhead_s"),
)
FLOOR_ROW = "floor (bare)"
COLUMNS = ("median", "p90")
GAP = 4  # spaces between two engines' tables
QUICK_SCENARIOS, QUICK_REPEATS, QUICK_FLOOR_REPS = 4, 1, 2
FULL_SCENARIOS = 9  # the demo scenarios: the 12 s target is for a pass over all of them
COLD = "-cold"  # the label of an engine's runs without the warm pool
FULL_REPEATS, FULL_FLOOR_REPS = 3, 5


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..100): a value that was measured, never interpolated."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def overhead(timings: dict[str, Any]) -> dict[str, float]:
    """One run's timings with the overhead around the scenario added (total - run)."""
    values = {
        key: float(timings.get(key) or 0.0) for key in ("start_s", "ready_s", "collect_s", "run_s", "total_s")
    }
    return {**values, "overhead_s": values["total_s"] - values["run_s"]}


@dataclass
class EngineNumbers:
    """What one engine measured: its name and version, the floor samples (seconds) and the runs'
    result.json timings."""

    engine: str
    version: str
    floor: list[float]
    timings: list[dict[str, Any]]
    not_passed: int = 0
    pass_s: float = 0.0  # wall seconds per pass over the demo scenarios
    small: list[dict[str, Any]] | None = None  # the small scenario's timings (bench_runner.SMALL)


def engine_table(n: EngineNumbers) -> list[str]:
    """One engine's table (about 36 columns wide): floor and phases, median and p90."""
    runs = [overhead(t) for t in n.timings]
    rows = [[FLOOR_ROW, f"{statistics.median(n.floor):.2f}", f"{percentile(n.floor, 90):.2f}"]]
    for label, key in ROWS:
        values = [r[key] for r in runs]
        rows.append([label, f"{statistics.median(values):.2f}", f"{percentile(values, 90):.2f}"])
    title = f"{n.engine} {n.version}"
    lines = table([title, *COLUMNS], rows).splitlines()
    return lines + [
        f"{len(runs)} runs, {len(n.floor)} floor" + (f", {n.not_passed} not passed" if n.not_passed else "")
    ]


def side_by_side(blocks: Sequence[Sequence[str]], width: int = WIDTH, gap: int = GAP) -> str:
    """The engines' tables next to each other, as many per line as fit in `width`."""
    out: list[str] = []
    row: list[Sequence[str]] = []

    def flush() -> None:
        if not row:
            return
        widths = [max(len(line) for line in block) for block in row]
        for i in range(max(len(block) for block in row)):
            cells = [(block[i] if i < len(block) else "").ljust(w) for block, w in zip(row, widths)]
            out.append((" " * gap).join(cells).rstrip())
        out.append("")
        row.clear()

    for block in blocks:
        used = sum(max(len(line) for line in b) + gap for b in row)
        if row and used + max(len(line) for line in block) > width:
            flush()
        row.append(block)
    flush()
    return "\n".join(out).rstrip()


def render(numbers: Sequence[EngineNumbers], scenarios: int, repeats: int) -> str:
    head = f"per-scenario overhead (s): oracle, {scenarios} demo scenarios x {repeats}, concurrency 1"
    text = head[:WIDTH] + "\n\n" + side_by_side([engine_table(n) for n in numbers])
    lines = [target_line(n, scenarios) for n in numbers if not n.engine.endswith(COLD)]
    return text + ("\n\n" + "\n".join(lines) if lines else "")


def target_line(n: EngineNumbers, scenarios: int) -> str:
    """The warm starts' targets on one engine: ready, a small run against the floor, a pass."""
    runs = [overhead(t) for t in n.timings]
    ready = statistics.median(r["ready_s"] for r in runs)
    total = statistics.median(overhead(t)["total_s"] for t in (n.small or n.timings))
    limit = 2 * statistics.median(n.floor) + 0.5
    checks = [
        f"ready {ready:.2f}<=0.8 {_ok(ready <= 0.8)}",
        f"small run {total:.2f}<={limit:.2f} {_ok(total <= limit)}",
    ]
    if scenarios == FULL_SCENARIOS:
        checks.append(f"{scenarios} demo {n.pass_s:.1f}<=12 {_ok(n.pass_s <= 12)}")
    else:
        checks.append(f"{scenarios} demo {n.pass_s:.1f}")
    return f"{n.engine}: " + ", ".join(checks)


def _ok(ok: bool) -> str:
    return "ok" if ok else "MISS"


def demo_files(quick: bool) -> list[Path]:
    return sorted(DEMO_DIR.glob("*.json"))[: QUICK_SCENARIOS if quick else None]


def measure_engine(engine: str, work: Path, quick: bool) -> list[EngineNumbers]:
    """Connect to `engine`, build its images when missing, then measure the floor and the runs:
    without the warm pool (`<engine>-cold`), then with it."""
    from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE, ensure_images
    from gaia2_runner.sandbox.sandbox import Sandbox
    from gaia2_runner.targets.resolve import scenario_ref

    demos = demo_files(quick)
    repeats = QUICK_REPEATS if quick else FULL_REPEATS
    numbers = []
    with Sandbox.connect(None, engine=engine) as sandbox:
        info = sandbox.info()
        built = ensure_images(sandbox, log=lambda _line: None)
        if built:
            log(f"{engine}: built {', '.join(built)}")
        log(f"{engine}: floor …")
        floor = [
            a + b
            for a, b in measure_floor(
                sandbox, RUNTIME_BASE_IMAGE, QUICK_FLOOR_REPS if quick else FULL_FLOOR_REPS
            )
        ]
        for warm in (False, True):
            label = engine if warm else engine + COLD
            log(f"{label}: {len(demos)} demo scenarios x {repeats} …")
            runner = Runner(sandbox, work / label)
            t0 = time.perf_counter()
            records = runner.run([scenario_ref(p, None) for p in demos], 1, repeats, warm_pool=warm)
            pass_s = (time.perf_counter() - t0) / repeats
            timings = [r["timings"] for r in records]
            small = [r["timings"] for r in records if r["scenario_id"] == SMALL.stem]
            numbers.append(
                EngineNumbers(label, info.version, floor, timings, len(runner.not_passed), pass_s, small)
            )
    return numbers


def compare(engines: Sequence[str], work: Path, quick: bool) -> str:
    """Measure every engine in turn; the side-by-side report."""
    t0 = time.perf_counter()
    numbers = [n for engine in engines for n in measure_engine(engine, work, quick)]
    log(f"engines measured in {time.perf_counter() - t0:.0f} s")
    return render(numbers, len(demo_files(quick)), QUICK_REPEATS if quick else FULL_REPEATS)
