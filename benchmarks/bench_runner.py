"""How much the runner costs around a scenario (not a test; prints numbers from one run).

Everything is measured once, in this process, on this machine:

- floor: create + start + first HTTP answer of a bare container (the runtime image running
  `python3 -m http.server` on the adapter port, started by Sandbox with the runner's own
  published port and network mode): what no scenario can beat;
- phases: start / ready / run / collect (result.json `timings`) of a small demo scenario and of
  a universe-scale one (`--universe FILE`, else the demo padded with thousands of contacts and
  emails to >= 2 MB);
- throughput: oracle scenarios per minute over the demo scenarios at concurrency 1, 2 and 4;
- memory: VmRSS of this process after 10 and after 200 finished scenarios (concurrency 4).

All runs go through plan_run / run_plan with the CLI's observers, as `gaia2-runner demo` does.
Then the targets are checked (ok / MISS). `--quick` does fewer repetitions (RSS at 10 and 30).
`--engines podman,docker` instead compares the engines' per-scenario overhead side by side
(benchmarks/bench_engines.py), all measured in this one invocation.

    .venv/bin/python benchmarks/bench_runner.py [--quick] [--universe FILE] [--keep DIR]
    .venv/bin/python benchmarks/bench_runner.py --engines podman,docker [--quick]
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench_report import PHASES, WIDTH, Measured, Target, check_targets, phase_medians, render, table  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO / "examples" / "scenarios"
SMALL = DEMO_DIR / "demo_email_reply.json"
UNIVERSE_MIN_BYTES = 2 << 20
FLOOR_COMMAND = ["python3", "-m", "http.server"]  # + the adapter port


# ---- pure functions (tests/e2e/test_bench_runner.py) ----------------------------------------------


def rss_mb(status_text: str) -> float:
    """VmRSS from a /proc/<pid>/status text, in MB (no psutil on the host)."""
    for line in status_text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ValueError("no VmRSS line")


def pad_universe(doc: dict[str, Any], min_bytes: int = UNIVERSE_MIN_BYTES) -> dict[str, Any]:
    """A copy of `doc` whose ContactsApp and EmailClientV2 states hold thousands more records, until
    the JSON is at least `min_bytes`: a universe-scale stand-in that keeps the demo's task, ids
    and oracle actions (new records get new ids, new emails are older than the real ones)."""
    out = copy.deepcopy(doc)
    states = {app.get("class_name"): app.get("app_state") for app in out.get("apps", [])}
    contacts, email = states.get("ContactsApp"), states.get("EmailClientV2")
    if not (isinstance(contacts, dict) and isinstance(email, dict)):
        raise ValueError("pad_universe needs a scenario with ContactsApp and EmailClientV2 states")
    people, inbox = contacts["contacts"], email["folders"]["INBOX"]["emails"]
    person = next(c for c in people.values() if not c.get("is_user"))
    letter, oldest = inbox[-1], min(e["timestamp"] for e in inbox)
    rng = random.Random(0)
    words = (
        "budget meeting travel invoice project report dinner weekend flight hotel review draft "
        "schedule offsite family garden museum concert delivery order payment update"
    ).split()
    definition = out["metadata"]["definition"]
    definition["scenario_id"] = f"{definition['scenario_id']}_universe"
    n = 0
    while len(json.dumps(out)) < min_bytes:
        for _ in range(250):
            n += 1
            first, last = rng.choice(words).title(), f"Padding{n}"
            people[f"contact-pad-{n}"] = {
                **person,
                "contact_id": f"contact-pad-{n}",
                "first_name": first,
                "last_name": last,
                "age": 20 + n % 50,
                "phone": f"+33 6 {n // 10000:02d} {n % 10000:04d} 00",
                "email": f"{first.lower()}.{last.lower()}@example.com",
                "description": " ".join(rng.choices(words, k=12)),
            }
            inbox.append(
                {
                    **letter,
                    "email_id": f"email-pad-{n}",
                    "sender": f"{last.lower()}@example.com",
                    "subject": " ".join(rng.choices(words, k=5)).capitalize(),
                    "content": " ".join(rng.choices(words, k=60)),
                    "timestamp": oldest - 60.0 * n,
                    "is_read": True,
                }
            )
    return out


# ---- measuring ----------------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure_floor(sandbox: Any, image: str, reps: int) -> list[tuple[float, float]]:
    """(create + start, start -> first HTTP answer) per repetition, after one unmeasured warm-up."""
    from gaia2_contract import constants as contract

    samples = []
    for i in range(reps + 1):
        t0 = time.perf_counter()
        handle = sandbox.run_scenario_container(
            image, None, {}, f"bench-floor-{i}", entrypoint=[*FLOOR_COMMAND, str(contract.ADAPTER_PORT)]
        )
        t1 = time.perf_counter()
        try:
            with httpx.Client(timeout=1.0, trust_env=False) as client:
                while True:
                    try:
                        client.get(handle.base_url)
                        break
                    except httpx.HTTPError:
                        if time.perf_counter() - t1 > 60:
                            raise RuntimeError("the bare container never answered") from None
                        time.sleep(0.01)
            t2 = time.perf_counter()
        finally:
            handle.cleanup(timeout=0)
        if i:
            samples.append((t1 - t0, t2 - t1))
    return samples


class RssSampler:
    """A run observer that reads this process's VmRSS when the n-th scenario finishes."""

    def __init__(self, at: Sequence[int]) -> None:
        self.at, self.done, self.samples = set(at), 0, {}  # type: ignore[var-annotated]
        self._lock = threading.Lock()

    def scenario_finished(self, _job: Any, _result: dict[str, Any]) -> None:
        with self._lock:
            self.done += 1
            if self.done in self.at:
                self.samples[self.done] = rss_mb(Path("/proc/self/status").read_text())


class Runner:
    """plan_run + run_plan on one engine connection, each plan into its own output directory."""

    def __init__(self, sandbox: Any, work: Path) -> None:
        self.sandbox, self.work, self.count = sandbox, work, 0
        self.not_passed: list[str] = []

    def run(
        self, refs: list[Any], concurrency: int, pass_at: int, extra: Any = None, warm_pool: bool = True
    ) -> list[dict[str, Any]]:
        from rich.console import Console

        from gaia2_runner.cli.progress import DatasetProgress
        from gaia2_runner.config import RunConfig, apply_overrides
        from gaia2_runner.execution.dataset_run import run_plan
        from gaia2_runner.execution.observer import Observers
        from gaia2_runner.execution.plan import plan_run
        from gaia2_runner.output.runner_log import RunnerLog
        from gaia2_runner.output.scrub import Scrubber
        from gaia2_runner.viewer.refresh import IndexRefresher

        self.count += 1
        out = self.work / f"plan{self.count}"
        config = apply_overrides(
            RunConfig(),
            {
                "dataset_root": DEMO_DIR,
                "provider": "oracle",
                "output_dir": out,
                "concurrency": concurrency,
                "pass_at": pass_at,
                "engine": self.sandbox.engine,
                "warm_pool": warm_pool,
            },
        )
        plan = plan_run(config, command="bench", fresh=True, refs=refs)
        with open(os.devnull, "w") as sink:
            display = DatasetProgress(Console(file=sink, width=WIDTH))
            observer = Observers([display, RunnerLog(out, "bench", Scrubber()), IndexRefresher(out), extra])
            outcome = run_plan(plan, sandbox=self.sandbox, observer=observer)
        self.not_passed += [
            f"{r['scenario_id']}: {r.get('status')}" for r in outcome.records if r.get("success") is not True
        ]
        return outcome.records


def measure(args: argparse.Namespace, work: Path) -> Measured:
    from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE, ensure_images
    from gaia2_runner.sandbox.sandbox import Sandbox
    from gaia2_runner.targets.resolve import scenario_ref

    quick = args.quick
    demos = sorted(DEMO_DIR.glob("*.json"))
    if args.universe:
        universe_path = Path(args.universe)
    else:
        universe_path = work / "universe.json"
        universe_path.write_text(json.dumps(pad_universe(json.loads(SMALL.read_text()))))
    small_ref, universe_ref = scenario_ref(SMALL, None), scenario_ref(universe_path, None)
    with Sandbox.connect() as sandbox:
        built = ensure_images(sandbox, log=lambda _line: None)
        if built:
            log(f"built {', '.join(built)}")
        runner = Runner(sandbox, work)
        log("floor: bare container …")
        floor = measure_floor(sandbox, RUNTIME_BASE_IMAGE, 3 if quick else 7)
        reps = 1 if quick else 3
        log(f"phases: {small_ref.scenario_id} and universe-scale, {reps} run(s) each …")
        small = [r["timings"] for r in runner.run([small_ref], 1, reps)]
        universe = [r["timings"] for r in runner.run([universe_ref], 1, reps)]
        throughput = {}
        refs = [scenario_ref(p, None) for p in (demos[:4] if quick else demos)]
        for conc in (1, 2, 4):
            log(f"throughput: {len(refs)} demo scenarios at concurrency {conc} …")
            t0 = time.perf_counter()
            records = runner.run(refs, conc, 1 if quick else 2)
            throughput[conc] = (len(records), time.perf_counter() - t0)
        first, last = (10, 30) if quick else (10, 200)
        log(f"memory: {math.ceil(last / len(demos)) * len(demos)} runs at concurrency 4 …")
        sampler = RssSampler((first, last))
        runner.run([scenario_ref(p, None) for p in demos], 4, math.ceil(last / len(demos)), sampler)
    return Measured(
        floor,
        small,
        universe,
        small_ref.scenario_id,
        universe_path.stat().st_size / 1e6,
        throughput,
        sampler.samples,
        runner.not_passed,
    )


def engine_list(text: str) -> list[str]:
    """--engines: a comma-separated list of engine names, each once."""
    from gaia2_runner.config.engines import ENGINES

    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names or any(n not in ENGINES for n in names):
        raise argparse.ArgumentTypeError(f"{text!r}: give a comma-separated list of {', '.join(ENGINES)}")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions; RSS at 10 and 30 scenarios")
    parser.add_argument(
        "--universe", type=Path, help="a universe-scale scenario file (default: a padded demo)"
    )
    parser.add_argument("--keep", type=Path, help="write the runs here and keep them")
    parser.add_argument(
        "--engines",
        type=engine_list,
        metavar="LIST",
        help="compare these engines' per-scenario overhead side by side (e.g. podman,docker)",
    )
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-runner-"))
    work.mkdir(parents=True, exist_ok=True)
    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    try:
        if args.engines:
            from bench_engines import compare

            report = compare(args.engines, work, args.quick)
        else:
            report = render(measure(args, work))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    mode = "quick" if args.quick else "full"
    print(
        f"gaia2-runner benchmark ({mode}), {time.strftime('%Y-%m-%d %H:%M')}: took "
        f"{time.perf_counter() - t0:.0f} s\n{os.cpu_count()} cores; load average {load0:.1f} at the "
        f"start, {os.getloadavg()[0]:.1f} at the end\n"
    )
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
