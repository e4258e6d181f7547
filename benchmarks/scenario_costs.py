"""Measured per-scenario costs of finished runs, the inputs of docs/guide/runbook-scale-out.md.

    python benchmarks/scenario_costs.py OUT [OUT ...]

Reads every result.json under each output directory (any layout: plain, pass@k, sharded) and
its summary.json, and prints per output directory: runs, the mean and 90th percentile of each
phase (container start, ARE load until /health, the scenario itself, collection, total), the job's
wall time, its concurrency (from run_config.json) and the throughput in runs per hour.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

PHASES = ("start_s", "ready_s", "run_s", "collect_s", "total_s")


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def results(root: Path) -> list[dict]:
    found = []
    for path in root.rglob("result.json"):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("timings"), dict):
            found.append(doc)
    return found


def concurrency(root: Path) -> int | None:
    for path in [root / "run_config.json", *sorted(root.glob("run_*/run_config.json"))]:
        try:
            return int(json.loads(path.read_text())["config"]["run"]["concurrency"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def report(root: Path) -> str:
    docs = results(root)
    if not docs:
        return f"{root}: no result.json"
    lines = [f"{root}: {len(docs)} runs, concurrency {concurrency(root)}"]
    for phase in PHASES:
        values = [
            float(d["timings"][phase]) for d in docs if isinstance(d["timings"].get(phase), (int, float))
        ]
        if values:
            lines.append(f"  {phase:<10} mean {statistics.mean(values):7.1f} s   p90 {p90(values):7.1f} s")
    try:
        wall = float(json.loads((root / "summary.json").read_text())["job_duration_s"])
        lines.append(f"  job wall   {wall:7.1f} s   throughput {3600 * len(docs) / wall:7.1f} runs/hour")
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("\n".join(report(Path(arg)) for arg in sys.argv[1:]))
