"""What the provider probe costs a run (not a test; prints numbers from one run).

The daemon's relay checks every fault it suspects on the agent's traffic with the runner's own
probe (containers/gaia2_container/daemon/provider/probe.py): one request at a time, an answer
reused for PROBE_REUSE_S. The claim (issue 31): an honest run pays nothing for it, and a hostile
one one extra request per suspicion window only. Measured here in this process, over real HTTP on
127.0.0.1, no container: the test fake provider (tests/support/fake_llm) behind a Relay with a
ProviderLedger, once with the daemon's real probe (the new design) and once without
(`probe=None`, the previous design).

- honest: N chat calls per design, the designs taking turns call by call (A B, B A, ...), each
  timed by the client from request to whole answer; median and p90 per call, their ratio, and
  the probes sent (counted by the fake provider, which answers them itself);
- hostile: M requests per design that the fake refuses by a rule (401, 402, 403 in turn, as a
  strict provider does) with the run's own key and model: each is a suspected configuration
  fault. They are spread over W suspicion windows: the relay's and the probe's clock is moved
  PROBE_REUSE_S + 1 s between windows, so the run does not wait 30 s for each. The probes sent
  against the bound (one per window, plus one when the run settles), and whether a fault was
  concluded (it must not be: the runner's own request is answered).

The verdict line checks the probe counts; the timing ratio is printed, never judged pass/fail.

    PYTHONPATH=containers:tests/support .venv/bin/python benchmarks/bench_probe.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx

from bench_engines import percentile
from bench_runner import WIDTH, table
from fake_llm.server import FakeLLM
from gaia2_container.daemon.provider.faults import CONFIGURATION, RunnerSetup
from gaia2_container.daemon.provider.ledger import ProviderLedger
from gaia2_container.daemon.provider.probe import PROBE_REUSE_S
from gaia2_container.daemon.relay import Relay, serve_relay
from relay_probe import probe_of

MODEL = "bench-model"
KEY = "sk-bench-placeholder"  # the run's placeholder: a refusal of it is a refusal of the configured key
NEW, OLD = "with probe (new)", "without (previous)"
# A strict provider's refusals, by what the request holds (the fake's rules): each, sent with the
# run's key and model, is a configuration fault suspected on the agent's traffic.
REFUSALS = (
    (401, "Incorrect API key provided"),
    (402, "Insufficient credits for this request"),
    (403, "Forbidden: this key may not use the model"),
)
RULES = [
    {"contains": f"bench-refuse-{status}", "status": status, "message": message}
    for status, message in REFUSALS
]
WARMUP = 5  # calls per design before the timed ones (first connections, imports)
NOISE = 0.10  # a median ratio within 1 +- NOISE reads as "nothing measurable" in the verdict
FULL = {"calls": 200, "refusals": 60, "windows": 3}
QUICK = {"calls": 30, "refusals": 12, "windows": 2}


class Clock:
    """A monotonic clock the bench can move forward: the ledger's and the probe's, so that a
    suspicion window of PROBE_REUSE_S passes without waiting for it."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


# ---- pure functions (tests/unit/test_probe_bench.py) ---------------------------------------------


@dataclass
class Honest:
    label: str
    latencies: list[float] = field(default_factory=list)  # seconds per call
    probes: int = 0  # the runner's own requests the fake provider received


@dataclass
class Hostile:
    label: str
    refusals: int
    suspicions: int  # refusals the ledger took for a configuration fault to check
    probes: int
    bound: int | None  # None: no probe to bound (the previous design)
    latencies: list[float]
    fault: str | None  # what the run concluded (None: the refusals were the agent's)


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.2f}"


def ratio(new: float, old: float) -> float:
    return new / old if old else float("inf")


def verdict(honest: Sequence[Honest], hostile: Sequence[Hostile]) -> tuple[bool, str]:
    """Whether the probe counts hold (an honest run sends none; a hostile one at least one and no
    more than its bound; no fault concluded), and the line that says so with the timing ratio."""
    sent = sum(h.probes for h in honest)
    checked = [h for h in hostile if h.bound is not None]
    ok = sent == 0 and all(1 <= h.probes <= (h.bound or 0) and h.fault is None for h in checked)
    by = {h.label: statistics.median(h.latencies) for h in honest}
    r = ratio(by[NEW], by[OLD])
    timing = "nothing measurable" if abs(r - 1) <= NOISE else "beyond noise? rerun on a quiet machine"
    probes = "; ".join(f"hostile {h.probes} for {h.suspicions} suspicions (bound {h.bound})" for h in checked)
    return ok, (
        f"verdict: {'ok' if ok else 'MISS'}: honest run {sent} probes; {probes}; "
        f"median x{r:.2f} with the probe ({timing}, timing not judged)"
    )


def render(honest: Sequence[Honest], hostile: Sequence[Hostile], windows: int) -> str:
    by = {h.label: h for h in honest}
    rows = [
        [
            h.label,
            str(len(h.latencies)),
            ms(statistics.median(h.latencies)),
            ms(percentile(h.latencies, 90)),
            str(h.probes),
        ]
        for h in honest
    ]
    new, old = by[NEW].latencies, by[OLD].latencies
    rows.append(
        [
            "ratio new / previous",
            "",
            f"{ratio(statistics.median(new), statistics.median(old)):.2f}",
            f"{ratio(percentile(new, 90), percentile(old, 90)):.2f}",
            "",
        ]
    )
    out = [
        table(["honest run", "calls", "median ms", "p90 ms", "probes sent"], rows)
        + "\n(per call, client-timed; the designs take turns call by call)"
    ]
    rows = [
        [
            h.label,
            str(h.refusals),
            str(h.suspicions),
            str(h.probes),
            "-" if h.bound is None else str(h.bound),
            ms(statistics.median(h.latencies)),
            "none" if h.fault is None else "FAULT",
        ]
        for h in hostile
    ]
    out.append(
        table(["hostile run", "refusals", "suspected", "probes", "bound", "median ms", "fault"], rows)
        + f"\n(401/402/403 by the fake's rules, with the run's key and model, over {windows}"
        f"\nwindows of {PROBE_REUSE_S:.0f} s on a moved clock; bound: one probe per window, plus one"
        "\nwhen the run settles; fault: what the run concluded)"
    )
    _, line = verdict(honest, hostile)
    out.append(line)
    return "\n\n".join(out)


def wrap(text: str, width: int = WIDTH) -> str:
    """Long lines (the verdict) broken at spaces to fit `width`."""
    out: list[str] = []
    for line in text.splitlines():
        while len(line) > width:
            cut = line.rfind(" ", 0, width + 1)
            cut = cut if cut > 0 else width
            out.append(line[:cut].rstrip())
            line = "  " + line[cut:].lstrip()
        out.append(line)
    return "\n".join(out)


# ---- measuring ----------------------------------------------------------------------------------


@dataclass
class Stack:
    """One relay (and its ledger) in front of the fake provider, and the agent's client to it."""

    relay: Relay
    http: httpx.Client
    fake: FakeLLM

    @property
    def ledger(self) -> ProviderLedger:
        return self.relay.ledger


@contextmanager
def stack(fake: FakeLLM, with_probe: bool, clock: Clock) -> Iterator[Stack]:
    upstream = f"http://127.0.0.1:{fake.port}/v1"
    probe = probe_of(upstream, MODEL) if with_probe else None
    if probe is not None:
        probe.clock = clock  # the ledger's clock: suspicions and answers on one time line
    ledger = ProviderLedger(RunnerSetup(model=MODEL, agent_key=KEY), clock=clock, probe=probe)
    relay = Relay(upstream, ledger=ledger)
    server = serve_relay(relay, "127.0.0.1", 0)
    http = httpx.Client(
        base_url=f"http://127.0.0.1:{server.server_address[1]}",
        trust_env=False,
        timeout=30,
        headers={"Authorization": f"Bearer {KEY}"},
    )
    try:
        yield Stack(relay, http, fake)
    finally:
        http.close()
        server.shutdown()
        server.server_close()
        relay.client.close()


def call(s: Stack, text: str) -> tuple[float, int]:
    """One chat call through the relay, as an agent makes it: (seconds to the whole answer, status)."""
    body = {"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": text}]}
    started = time.perf_counter()
    answer = s.http.post("/chat/completions", json=body)
    answer.read()
    return time.perf_counter() - started, answer.status_code


def honest_call(s: Stack, i: int) -> float:
    seconds, status = call(s, f"Honest question {i}: what is on my calendar today?")
    if status != 200:
        raise RuntimeError(f"an honest call got HTTP {status}")
    return seconds


def refused_call(s: Stack, i: int) -> float:
    status = REFUSALS[i % len(REFUSALS)][0]
    seconds, got = call(s, f"please bench-refuse-{status} this")
    if got != status:
        raise RuntimeError(f"a refusal by rule got HTTP {got}, not {status}")
    return seconds


def order(i: int) -> tuple[str, str]:
    """A B, B A, A B, ...: the designs take turns call by call, each first as often, so a machine
    that slows down or speeds up during the run weighs on both alike."""
    return (NEW, OLD) if i % 2 == 0 else (OLD, NEW)


def measure_honest(fake: FakeLLM, calls: int) -> list[Honest]:
    """N calls per design, taking turns; then each run ends (settle, the outage check) as the
    daemon's does. The probes are what the fake provider received."""
    clock = Clock()
    before = len(fake.probes)
    results = {NEW: Honest(NEW), OLD: Honest(OLD)}
    with stack(fake, True, clock) as new, stack(fake, False, clock) as old:
        stacks = {NEW: new, OLD: old}
        for i in range(WARMUP):
            for label in order(i):
                honest_call(stacks[label], i)
        for i in range(calls):
            for label in order(i):
                results[label].latencies.append(honest_call(stacks[label], i))
        for label, s in stacks.items():
            if s.relay.provider_unavailable() is not None:
                raise RuntimeError(f"{label}: an honest run concluded an outage")
            results[label].probes = s.ledger.summary()["probes"]
    sent = len(fake.probes) - before
    results[NEW].probes = max(results[NEW].probes, sent)  # the provider's count is the witness
    return [results[NEW], results[OLD]]


def wait_for_probe(s: Stack, probes_before: int, timeout_s: float = 5.0) -> None:
    """Let a probe in flight answer before the clock moves on (30 s would give it the time)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if s.ledger.summary()["probes"] >= len(s.fake.probes) - probes_before:
            time.sleep(0.02)  # the probe thread marks itself done just after counting
            return
        time.sleep(0.01)


def measure_hostile(fake: FakeLLM, refusals: int, windows: int) -> list[Hostile]:
    """M refusals per design, taking turns, spread over `windows` suspicion windows; then each run
    ends as the daemon's does (the last suspicion settled, the outage check)."""
    clock = Clock()  # one time line for both: the previous design has no probe to move
    before = len(fake.probes)
    latencies: dict[str, list[float]] = {NEW: [], OLD: []}
    with stack(fake, True, clock) as new, stack(fake, False, clock) as old:
        stacks = {NEW: new, OLD: old}
        per = [refusals // windows + (1 if i < refusals % windows else 0) for i in range(windows)]
        sent = 0
        for w, size in enumerate(per):
            if w:
                wait_for_probe(new, before)
                clock.advance(PROBE_REUSE_S + 1)
            for _ in range(size):
                for label in order(sent):
                    latencies[label].append(refused_call(stacks[label], sent))
                sent += 1
        out = []
        for label, s in stacks.items():
            conclusion = s.relay.provider_unavailable()  # settles the last suspicion, as the run's end does
            summary = s.ledger.summary()
            out.append(
                Hostile(
                    label,
                    refusals,
                    summary[CONFIGURATION],
                    0,
                    windows + 1 if label == NEW else None,
                    latencies[label],
                    conclusion,
                )
            )
    out[0].probes = len(fake.probes) - before  # the provider's count: only the new design can send any
    return out


def measure(args: argparse.Namespace) -> tuple[list[Honest], list[Hostile]]:
    script = {
        "rules": RULES,
        "chat": [{"text": "Nothing is on your calendar today.", "repeat": 2 * (args.calls + WARMUP)}],
    }
    fake = FakeLLM(script, host="127.0.0.1")
    # Its answer is two writes (headers, body): with Nagle's algorithm the second waits for the
    # client's delayed ACK, about 40 ms a call, which would bury the relay's own few ms. A real
    # provider's latency is no part of what the probe costs; this fake's handler class is its own.
    fake.httpd.RequestHandlerClass.disable_nagle_algorithm = True
    fake.start()
    try:
        honest = measure_honest(fake, args.calls)
        hostile = measure_hostile(fake, args.refusals, args.windows)
    finally:
        fake.stop()
    return honest, hostile


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK['calls']} calls, {QUICK['refusals']} refusals (else {FULL['calls']}, "
        f"{FULL['refusals']})",
    )
    parser.add_argument("--calls", type=int, help="honest calls per design")
    parser.add_argument("--refusals", type=int, help="refused requests in the hostile run")
    parser.add_argument(
        "--windows", type=int, help=f"{PROBE_REUSE_S:.0f} s windows the refusals are spread over"
    )
    args = parser.parse_args(argv)
    for name, default in (QUICK if args.quick else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, default)
        if getattr(args, name) < 1:
            print(f"error: --{name} must be at least 1", file=sys.stderr)
            return 2
    if args.windows > args.refusals:
        print(
            "error: --windows must not exceed --refusals (one refusal per window at least)", file=sys.stderr
        )
        return 2
    started = time.perf_counter()
    honest, hostile = measure(args)
    head = (
        f"provider probe: {args.calls} honest calls per design, {args.refusals} refusals; "
        f"load {os.getloadavg()[0]:.2f}, {time.perf_counter() - started:.1f} s"
    )
    print(head[:WIDTH] + "\n")
    print(wrap(render(honest, hostile, args.windows)))
    return 0 if verdict(honest, hostile)[0] else 1


if __name__ == "__main__":
    sys.exit(main())
