"""The report of benchmarks/bench_runner.py: its numbers, the targets they are held to and the
80-column tables they print as (pure: tests/e2e/test_bench_runner.py checks them without a container)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

WIDTH = 80
PHASES = ("start_s", "ready_s", "run_s", "collect_s")


def phase_medians(timings: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The median of each phase and of the total over several runs' result.json timings."""
    return {key: statistics.median(float(t.get(key) or 0.0) for t in timings) for key in (*PHASES, "total_s")}


@dataclass
class Measured:
    """Numbers from one benchmark run (seconds unless named otherwise)."""

    floor: list[tuple[float, float]]  # (create + start, first HTTP answer) per repetition
    small: list[dict[str, Any]]  # result.json timings per run
    universe: list[dict[str, Any]]
    small_name: str
    universe_mb: float
    throughput: dict[int, tuple[int, float]]  # concurrency -> (runs, wall seconds)
    rss: dict[int, float]  # finished scenarios -> MB
    not_passed: list[str] = field(default_factory=list)

    @property
    def floor_s(self) -> float:
        return statistics.median(a + b for a, b in self.floor)


@dataclass(frozen=True)
class Target:
    name: str
    measured: str
    limit: str
    ok: bool


def check_targets(floor_s: float, small_s: float, universe_s: float, rss: dict[int, float]) -> list[Target]:
    """The three targets of the issue, each with what was measured and the limit it is held to."""
    first, last = rss[min(rss)], rss[max(rss)]
    change = (last - first) / first
    return [
        Target(
            "small oracle run <= 2 x floor + 1 s",
            f"{small_s:.2f} s",
            f"{2 * floor_s + 1:.2f} s",
            small_s <= 2 * floor_s + 1,
        ),
        Target(
            "universe-scale <= small + 3 s",
            f"{universe_s:.2f} s",
            f"{small_s + 3:.2f} s",
            universe_s <= small_s + 3,
        ),
        Target(
            f"RSS flat +-10 % ({min(rss)} -> {max(rss)} runs)",
            f"{100 * change:+.1f} %",
            "+-10 %",
            abs(change) <= 0.10,
        ),
    ]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int = WIDTH) -> str:
    """Left column left-aligned, the others right-aligned; the first column is cut to fit `width`."""
    cells = [list(headers), *[list(r) for r in rows]]
    widths = [max(len(c[i]) for c in cells) for i in range(len(headers))]
    widths[0] = min(widths[0], max(8, width - sum(widths[1:]) - 2 * (len(widths) - 1)))
    lines = []
    for row in cells:
        first = row[0] if len(row[0]) <= widths[0] else row[0][: widths[0] - 1] + "…"
        lines.append("  ".join([first.ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:]))]))
    return "\n".join(line.rstrip() for line in lines)


def _phase_table(m: Measured) -> str:
    """The phases of both scenarios against the bare container's floor."""
    floor = m.floor_s
    start, http = (statistics.median(x) for x in zip(*m.floor))
    phase_rows = [
        [
            "bare container (floor)",
            str(len(m.floor)),
            f"{start:.2f}",
            f"{http:.2f}",
            "-",
            "-",
            f"{floor:.2f}",
            "1.0",
        ]
    ]
    for name, runs in ((m.small_name, m.small), (f"universe {m.universe_mb:.1f} MB", m.universe)):
        med = phase_medians(runs)
        phase_rows.append(
            [
                name,
                str(len(runs)),
                *(f"{med[k]:.2f}" for k in (*PHASES, "total_s")),
                f"{med['total_s'] / floor:.1f}",
            ]
        )
    return (
        table(["seconds, median", "runs", "start", "ready", "run", "collect", "total", "x floor"], phase_rows)
        + "\n(each column is its own median; total also counts removing the container)"
    )


def render(m: Measured) -> str:
    """The report: phases against the floor, throughput, memory, targets."""
    floor = m.floor_s
    out = [_phase_table(m)]
    base = m.throughput[min(m.throughput)]
    rows = []
    for conc, (runs, wall) in sorted(m.throughput.items()):
        rate = 60 * runs / wall
        rows.append(
            [
                f"oracle, demo scenarios, concurrency {conc}",
                str(runs),
                f"{wall:.1f}",
                f"{rate:.1f}",
                f"{rate / (60 * base[0] / base[1]):.2f}",
            ]
        )
    out.append(table(["throughput", "runs", "wall s", "per min", "x c=1"], rows))
    first, last = min(m.rss), max(m.rss)
    rows = [
        [
            f"runner RSS after {n} scenarios (concurrency 4)",
            f"{m.rss[n]:.1f}",
            f"{m.rss[n] / m.rss[first]:.2f}",
        ]
        for n in (first, last)
    ]
    out.append(table(["memory", "MB", f"x at {first}"], rows))
    small, universe = phase_medians(m.small)["total_s"], phase_medians(m.universe)["total_s"]
    targets = check_targets(floor, small, universe, m.rss)
    out.append(
        table(
            ["target", "measured", "limit", ""],
            [[t.name, t.measured, t.limit, "ok" if t.ok else "MISS"] for t in targets],
        )
    )
    if m.not_passed:
        shown = ", ".join(m.not_passed[:3]) + (", …" if len(m.not_passed) > 3 else "")
        out.append(f"warning: {len(m.not_passed)} run(s) did not pass: {shown}"[:WIDTH])
    return "\n\n".join(out)
