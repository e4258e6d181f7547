"""The runner's peak RSS with an agent printing 1.5 GB vs a quiet one (not a test; prints numbers).

Both run the CLI (`gaia2-runner run`, the oracle image, one scenario) as a child process that
reports its own peak RSS at exit (tests/support/runner_rss.py). The loud agent is GAIA2_AGENT_COMMAND
printing `--mb` MiB; the quiet one is the oracle itself. The runner must not grow with what the
agent prints (agent.log is capped in the container, the output archive is streamed).

    PYTHONPATH=tests/support flock /tmp/gaia2-e2e.lock .venv/bin/python benchmarks/bench_runner_memory.py [--mb 1500]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from runner_rss import PRINTER, python_command, run_cli

SCENARIO = Path(__file__).resolve().parents[1] / "examples" / "scenarios" / "demo_calendar_add_event.json"
MiB = 1024**2


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=1500, help="MiB the loud agent prints")
    args = parser.parse_args()
    peaks = {}
    with tempfile.TemporaryDirectory(prefix="bench-runner-memory-") as tmp:
        for name, extra in (
            ("quiet", []),
            ("loud", ["--env", f"GAIA2_AGENT_COMMAND={python_command(PRINTER.format(mb=args.mb))}"]),
        ):
            out = Path(tmp) / name
            proc, peaks[name] = run_cli(
                [
                    "run",
                    "--agent",
                    "oracle",
                    "--scenario",
                    str(SCENARIO),
                    "--output-dir",
                    str(out),
                    "--no-preflight",
                    *extra,
                ],
                Path(tmp) / f"{name}.rss",
            )
            print(f"{name:>6}: exit {proc.returncode}, runner peak RSS {peaks[name] / MiB:.0f} MiB")
    print(f" ratio: {peaks['loud'] / peaks['quiet']:.2f} (loud agent printed {args.mb} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
