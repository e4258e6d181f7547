"""How fast `view` and `serve` are on a large run (not a test; prints numbers).

Builds 2,000 synthetic scenarios (2–6 LLM calls each, mixed provider wire formats, JSON and
streamed), then times: a full `view`, the incremental refresh `serve` runs when one scenario
changes, and `regenerate_index` from a fresh process state; reports peak RSS and Python heap.

    PYTHONPATH=tests/support .venv/bin/python benchmarks/bench_viewer.py [--scenarios 2000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from gaia2_runner.viewer import Site
from viewer_synth import dataset_tree


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--keep", type=Path, help="build the tree here and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-viewer-"))
    try:
        t0 = time.perf_counter()
        dirs = dataset_tree(root, args.scenarios, splits=("search", "time", "execution"), n_calls=(2, 6))
        trace_mb = sum((d / "trace.jsonl").stat().st_size for d in dirs) / 1e6
        print(
            f"synthetic tree: {len(dirs)} scenarios, {trace_mb:.1f} MB of trace.jsonl, "
            f"built in {time.perf_counter() - t0:.1f}s"
        )

        t0 = time.perf_counter()
        site = Site(root)
        site.refresh()
        full = time.perf_counter() - t0
        html_mb = sum((d / "trace.html").stat().st_size for d in dirs) / 1e6
        print(
            f"full view:            {full:6.2f} s  ({1000 * full / len(dirs):.1f} ms/scenario, "
            f"{html_mb:.1f} MB of trace.html)"
        )

        changed = dirs[len(dirs) // 2]
        times = []
        for i in range(5):
            result = json.loads((changed / "result.json").read_text())
            result["failure_reasons"] = [f"edit {i}"]
            (changed / "result.json").write_text(json.dumps(result))
            t0 = time.perf_counter()
            written = site.refresh([changed / "result.json"])
            times.append(time.perf_counter() - t0)
        tracemalloc.start()  # Python heap of the long-lived serve process during one more refresh
        (changed / "result.json").write_text((changed / "result.json").read_text() + " ")
        site.refresh([changed / "result.json"])
        _, heap_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"serve, one changed:   {1000 * min(times):6.1f} ms best / {1000 * sorted(times)[2]:.1f} ms median "
            f"(pages written: {len(written)})"
        )

        t0 = time.perf_counter()
        Site(root).refresh()  # what regenerate_index costs in a new process: stat everything, re-read nothing
        print(f"regenerate_index, fresh process, nothing changed: {time.perf_counter() - t0:6.2f} s")

        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"peak memory:          {rss_mb:6.0f} MB RSS (process), "
            f"{heap_peak / 1e6:.0f} MB Python heap peak during one serve refresh"
        )
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
