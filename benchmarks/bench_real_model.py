"""How much the runner costs around a real model (not a test; prints numbers from one run).

Starts llama-server with the small model of the real-model tests (tests/support/real_model.py), runs demo
scenarios one after the other through the CLI exactly as a user does (`gaia2-runner run --agent …`,
the judge on the same server), and prints per scenario:

- wall: the whole CLI run, start to exit, as a user waits for it (preflight, container, judge, report);
  `in container` is the scenario's own part of it (result.json `timings.total_s`);
- LLM: the agent's model calls, the sum of the trace's request-to-last-byte latencies (retries included);
- runner: what is left, wall - LLM, as a share of the wall (target <= 5 %): container start, ARE loading,
  the daemon's tools, the agent's own loop, judging, report, and also the preflight's tiny model requests
  and the judge's LLM checks (an upper bound on the runner's own cost). A scenario stopped at its time
  limit ends with a model call in flight that no trace records: its row overstates the runner's share.

    PYTHONPATH=tests/support .venv/bin/python benchmarks/bench_real_model.py \
        [--agent llm|HARNESS] [--scenario NAME ...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from bench_runner import table  # noqa: E402
from real_model import RealModelServer, running_server  # noqa: E402
from real_model_runs import llm_agent_args, llm_calls, llm_seconds, run_real  # noqa: E402

DEFAULT_SCENARIOS = ("demo_calendar_add_event", "demo_contacts_update_phone", "demo_messaging_send")
OVERHEAD_TARGET = 0.05


# ---- pure functions ------------------------------------------------------------------------------


@dataclass
class ScenarioCost:
    name: str
    verdict: str
    calls: int
    wall_s: float
    scenario_s: float
    llm_s: float

    @property
    def overhead_s(self) -> float:
        return max(0.0, self.wall_s - self.llm_s)

    @property
    def overhead_share(self) -> float:
        return self.overhead_s / self.wall_s if self.wall_s else 0.0


HEADERS = [
    "scenario",
    "verdict",
    "calls",
    "wall s",
    "in container",
    "LLM s",
    "runner s",
    "runner share",
    "<=5 %",
]


def row(name: str, verdict: str, costs: Sequence[ScenarioCost]) -> list[str]:
    """One table row over `costs` (one scenario, or all of them)."""
    wall, over = sum(c.wall_s for c in costs), sum(c.overhead_s for c in costs)
    share = over / wall if wall else 0.0
    seconds = [wall, sum(c.scenario_s for c in costs), sum(c.llm_s for c in costs), over]
    return [
        name,
        verdict,
        str(sum(c.calls for c in costs)),
        *(f"{x:.1f}" for x in seconds),
        f"{100 * share:.1f} %",
        "ok" if share <= OVERHEAD_TARGET else "MISS",
    ]


def render(costs: Sequence[ScenarioCost]) -> str:
    rows = [row(c.name, c.verdict, [c]) for c in costs] + [row("all", "", costs)]
    return (
        table(HEADERS, rows, width=110)
        + "\n(wall: the CLI run; LLM: the agent's model calls, from the trace; runner: the rest of the wall)"
    )


# ---- measuring -----------------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure_one(server: RealModelServer, agent: str, name: str, work: Path) -> ScenarioCost:
    extra = llm_agent_args() if agent == "llm" else []
    t0 = time.perf_counter()
    run = run_real(agent, name, work / name, server, *extra)
    wall = time.perf_counter() - t0
    if not run.result:
        raise RuntimeError(f"{name}: no result.json\n{run.proc.stdout[-2000:]}\n{run.proc.stderr[-2000:]}")
    verdict = {True: "pass", False: "fail"}.get(run.result.get("success"), "none")
    if run.result.get("status") not in ("completed", "failed"):
        verdict += f" ({run.result.get('status')})"
    calls = llm_calls(run.out)
    return ScenarioCost(
        name, verdict, len(calls), wall, float(run.result["timings"]["total_s"]), llm_seconds(calls)
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="llm", help="llm (the built-in agent, default) or a CLI harness")
    parser.add_argument("--scenario", action="append", help="demo scenario name (repeatable; default: three)")
    parser.add_argument("--keep", type=Path, help="write the runs and the server's log here and keep them")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-real-model-"))
    work.mkdir(parents=True, exist_ok=True)
    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    try:
        with running_server(work / "server") as server:
            log(f"llama-server on port {server.port}, model {server.model}")
            costs = []
            for name in args.scenario or DEFAULT_SCENARIOS:
                log(f"running {name} with --agent {args.agent}")
                costs.append(measure_one(server, args.agent, name, work))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(
        f"gaia2-runner real-model benchmark, --agent {args.agent}, model {server.model}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}: took {time.perf_counter() - t0:.0f} s\n{os.cpu_count()} cores; "
        f"load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end\n"
    )
    print(render(costs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
