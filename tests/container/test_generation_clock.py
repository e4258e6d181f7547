"""Simulated generation time (daemon/clock/generation.py, gaia2_contract/generation_time.py): the
clock holds while the agent's model calls are in flight and is then charged their wall span
(measured) or N seconds (fixed:N); `off` lets it run on.

The environment is a stand-in with ARE's pause / resume_with_offset / TimeManager arithmetic on a
wall clock the test moves (ARE itself is only in the images; the e2e test runs the real one), so
the amounts are exact. The relay tests use real HTTP on loopback and the real relay.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from gaia2_container.daemon.clock.generation import GenerationClock, setting_from_env
from gaia2_container.daemon.relay import Relay, serve_relay
from gaia2_container.daemon.relay.trace import RelayTrace
from gaia2_contract.generation_time import FIXED, MEASURED, GenerationTime, parse_generation_time

START = 1727773200.0
RUNNING, PAUSED = "RUNNING", "PAUSED"


class Wall:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class TimeManager:
    """ARE's TimeManager arithmetic (time_passed frozen while paused, offsets), at `speed`."""

    def __init__(self, wall: Wall, speed: float) -> None:
        self.wall, self.speed = wall, speed
        self.origin, self.offset = wall(), 0.0
        self.is_paused, self.paused_at, self.pause_offset = False, 0.0, 0.0

    def _running(self) -> float:
        return (self.wall() - self.origin) * self.speed + self.offset

    def time(self) -> float:
        return START + (self.paused_at + self.pause_offset if self.is_paused else self._running())

    def pause(self) -> None:
        if not self.is_paused:
            self.paused_at, self.pause_offset, self.is_paused = self._running(), 0.0, True

    def resume(self) -> None:
        if self.is_paused:
            self.offset += self.paused_at + self.pause_offset - self._running()
            self.is_paused = False

    def add_offset(self, seconds: float) -> None:
        if self.is_paused:
            self.pause_offset += seconds
        else:
            self.offset += seconds


class Env:
    """ARE's Environment.pause / resume_with_offset (no-ops in the wrong state), counting ticks."""

    def __init__(self, wall: Wall, speed: float = 1.0) -> None:
        self.time_manager = TimeManager(wall, speed)
        self.state = RUNNING
        self.ticks = self.pauses = 0

    def pause(self) -> None:
        if self.state == RUNNING:
            self.time_manager.pause()
            self.state, self.pauses = PAUSED, self.pauses + 1

    def resume_with_offset(self, offset: float) -> None:
        if self.state == PAUSED:
            self.time_manager.add_offset(offset)
            self.time_manager.resume()
            self.state = RUNNING
            self.tick()

    def tick(self) -> None:
        self.ticks += 1

    def sim(self) -> float:
        return round(self.time_manager.time() - START, 6)


def clock(mode: str, speed: float = 1.0) -> tuple[GenerationClock, Env, Wall]:
    wall = Wall()
    env = Env(wall, speed)
    return GenerationClock(parse_generation_time(mode), env, wall=wall), env, wall


# ---- the setting ---------------------------------------------------------------------------


def test_the_setting_parses_to_one_normal_form():
    assert parse_generation_time(None) == parse_generation_time("") == GenerationTime(MEASURED)
    assert (
        str(parse_generation_time(" Measured ")) == "measured" and str(parse_generation_time("OFF")) == "off"
    )
    assert parse_generation_time("fixed:2.50") == GenerationTime(FIXED, 2.5)
    assert (
        str(parse_generation_time("fixed: 2.50")) == "fixed:2.5"
        and str(parse_generation_time("fixed:0")) == "fixed:0"
    )
    assert parse_generation_time("off").holds is False and parse_generation_time("fixed:1").holds is True
    for bad in (
        "fixed",
        "fixed:",
        "fixed:-1",
        "fixed:nan",
        "fixed:inf",
        "fixed:3601",
        "random",
        "on",
        "fixed:x",
    ):
        with pytest.raises(ValueError, match="measured, off or fixed:N"):
            parse_generation_time(bad)
    with pytest.raises(ValueError, match="GAIA2_SIM_GENERATION_TIME must be"):
        setting_from_env("sometimes")


# ---- the clock -----------------------------------------------------------------------------


def test_measured_holds_the_clock_and_charges_the_wall_span_not_the_speed():
    gen, env, wall = clock("measured", speed=10)
    wall.now += 1  # ten simulated seconds at speed 10 before the call
    assert env.sim() == 10
    span = gen.begin()
    assert env.state == PAUSED
    wall.now += 5
    assert env.sim() == 10  # nothing passes while the model generates
    fields = span.end()
    assert env.state == RUNNING and env.ticks == 1  # ARE's resume ticks: due events fire
    assert env.sim() == 15  # 5 wall seconds of generation cost 5 simulated seconds, not 50
    assert fields == {"sim_started_at": START + 10, "sim_duration_s": 5.0}
    assert span.end() is fields  # idempotent: the relay ends a span once whichever way the call ends
    wall.now += 1
    assert env.sim() == 25  # and the clock runs on at its speed
    assert gen.summary() == {"mode": "measured", "calls_held": 1, "held_s": 5.0, "advanced_s": 5.0}


def test_fixed_charges_n_seconds_per_call_whatever_it_took():
    gen, env, wall = clock("fixed:2", speed=10)
    span = gen.begin()
    wall.now += 7
    assert span.end()["sim_duration_s"] == 2.0 and env.sim() == 2
    span = gen.begin()
    assert span.end()["sim_duration_s"] == 2.0 and env.sim() == 4  # an instant call costs N too
    assert gen.summary()["advanced_s"] == 4.0


def test_off_lets_the_clock_run_during_generation():
    gen, env, wall = clock("off", speed=10)
    span = gen.begin()
    assert env.state == RUNNING and env.pauses == 0
    wall.now += 5
    assert span.end() == {"sim_started_at": START, "sim_duration_s": 50.0}
    assert gen.summary() == {"mode": "off", "calls_held": 0, "held_s": 0.0, "advanced_s": 0.0}


def test_concurrent_calls_hold_the_clock_once_and_charge_the_union_of_their_spans():
    gen, env, wall = clock("measured", speed=4)
    first = gen.begin()
    wall.now += 2
    second = gen.begin()  # overlaps the first
    wall.now += 2
    assert first.end()["sim_duration_s"] == 0.0  # the second still holds the clock
    assert env.state == PAUSED
    wall.now += 3
    assert second.end() == {"sim_started_at": START, "sim_duration_s": 7.0}  # 0 -> 7: the union
    assert env.sim() == 7 and env.pauses == 1 and env.ticks == 1
    # fixed:N charges a busy period once, however many calls overlapped in it
    gen, env, wall = clock("fixed:3")
    spans = [gen.begin() for _ in range(3)]
    for span in spans:
        wall.now += 10
        span.end()
    assert env.sim() == 3 and gen.summary()["calls_held"] == 3


def test_a_tool_call_during_a_call_in_flight_gets_the_time_charged_so_far():
    gen, env, wall = clock("measured", speed=10)
    span = gen.begin()
    wall.now += 4
    with gen.tool_call():  # a parallel sub-agent's tool call
        assert env.sim() == 4 and env.ticks == 1  # what fell due fired before the tool ran
        env.time_manager.add_offset(60)  # ARE's wait_for_notification jumps ...
        env.time_manager.resume()  # ... and resumes the time manager when it is done
    assert env.time_manager.is_paused  # held again: the call is still in flight
    wall.now += 1
    assert env.sim() == 64
    span.end()
    assert env.sim() == 65 and gen.summary()["advanced_s"] == 5.0
    # fixed: the period's N once, at the first tool call
    gen, env, wall = clock("fixed:2")
    span = gen.begin()
    with gen.tool_call():
        assert env.sim() == 2
    span.end()
    assert env.sim() == 2


def test_a_failed_call_holds_the_clock_and_charges_nothing():
    gen, env, wall = clock("measured", speed=10)
    failed = gen.begin()
    wall.now += 4
    assert env.state == PAUSED  # held while it is in flight ...
    assert failed.end(charge=False)["sim_duration_s"] == 0.0  # ... and resumed with 0, as ARE does
    assert env.state == RUNNING and env.sim() == 0 and env.ticks == 1
    good = gen.begin()  # the retry answers: only it is charged
    wall.now += 3
    assert good.end()["sim_duration_s"] == 3.0 and env.sim() == 3
    assert gen.summary() == {"mode": "measured", "calls_held": 2, "held_s": 7.0, "advanced_s": 3.0}
    gen, env, wall = clock("fixed:2")  # fixed: a period with no answer costs nothing either
    gen.begin().end(charge=False)
    assert env.sim() == 0
    span = gen.begin()
    assert span.end()["sim_duration_s"] == 2.0


def test_a_failed_call_overlapping_a_good_one_adds_nothing_to_its_charge():
    gen, env, wall = clock("measured", speed=4)
    failed = gen.begin()  # wall 0
    wall.now += 2
    good = gen.begin()  # wall 2
    wall.now += 3
    good.end()  # wall 5: answered, [2, 5]
    assert env.state == PAUSED  # the failed one still holds the clock
    wall.now += 4
    failed.end(charge=False)  # wall 9: [0, 9] failed
    assert env.state == RUNNING and env.sim() == 3  # only the good call's 3 s
    # the failed call ends first, the good one outlives it: the good one's whole span counts
    gen, env, wall = clock("measured")
    good, failed = gen.begin(), gen.begin()
    wall.now += 2
    failed.end(charge=False)
    wall.now += 1
    good.end()
    assert env.sim() == 3
    # a failed call overlapping nothing between two good ones in one busy period
    gen, env, wall = clock("measured")
    first = gen.begin()
    wall.now += 1
    failed = gen.begin()
    first.end()  # [0, 1]
    wall.now += 5
    last = gen.begin()  # [6, 8]
    failed.end(charge=False)
    wall.now += 2
    last.end()
    assert env.sim() == 3 and gen.summary()["held_s"] == 8.0


def test_a_call_that_never_ends_cannot_hold_the_clock_under_the_judge():
    gen, env, wall = clock("measured", speed=10)
    endless = gen.begin()
    wall.now += 30
    gen.close()  # the run's wall timeout started the final judgment
    assert env.sim() == 30  # what was held is charged
    env.pause()  # the judge pauses the environment ...
    env.resume_with_offset(0)  # (standing in for anything that resumes it under the judge)
    env.pause()
    wall.now += 30
    assert endless.end()["sim_duration_s"] == 30.0  # ... and the call ending late changes nothing
    assert env.state == PAUSED and env.sim() == 30
    later = gen.begin()  # nor can a new call pause or resume anything now
    assert later.held is False and later.end()["sim_duration_s"] == 0.0


def test_nothing_is_held_for_the_oracle_or_without_an_environment():
    wall = Wall()
    env = Env(wall)
    manual = GenerationClock(GenerationTime(MEASURED), env, manual=True, wall=wall)
    assert manual.begin().held is False and env.pauses == 0
    assert GenerationClock.off().begin().end() == {"sim_started_at": None, "sim_duration_s": None}
    with GenerationClock.off().tool_call():
        pass


def test_a_clock_paused_by_someone_else_is_never_resumed_by_a_call():
    gen, env, wall = clock("measured")
    env.pause()  # the judge's pause
    span = gen.begin()
    wall.now += 5
    span.end()
    assert env.state == PAUSED and env.sim() == 0


# ---- through the relay, over real HTTP -------------------------------------------------------


class Provider(BaseHTTPRequestHandler):
    """Answers a model call once the test opens `gate` (never, for the endless call), with the next
    of `statuses` (200 when none is left); GET answers at once."""

    protocol_version = "HTTP/1.1"
    gate = threading.Event()
    arrived = threading.Event()
    statuses: list[int] = []

    def log_message(self, *_args: object) -> None:
        pass

    def _reply(self, body: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._reply(b'{"data": []}')

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.arrived.set()
        if self.gate.wait(20):
            status = self.statuses.pop(0) if self.statuses else 200
            self._reply(
                b'{"choices": []}' if status == 200 else b'{"error": {"message": "slow down"}}', status
            )


@pytest.fixture
def relayed(tmp_path: Path):
    Provider.gate.clear()
    Provider.arrived.clear()
    Provider.statuses = []
    provider = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    wall = Wall()
    env = Env(wall, speed=10)
    gen = GenerationClock(GenerationTime(MEASURED), env, wall=wall)
    trace = RelayTrace(tmp_path / "trace.jsonl", "openai")
    recorded: list[dict] = []
    relay = Relay(
        f"http://127.0.0.1:{provider.server_address[1]}",
        trace=trace,
        timeout_s=2.0,
        record=lambda outcome, sim: recorded.append({"status": outcome.status, **sim}),
    )
    relay.generation = gen
    server = serve_relay(relay, "127.0.0.1", 0)
    http = httpx.Client(base_url=f"http://127.0.0.1:{server.server_address[1]}", trust_env=False, timeout=30)
    yield http, gen, env, wall, trace, recorded
    Provider.gate.set()
    http.close()
    server.shutdown()
    provider.shutdown()


def _post_in_background(http: httpx.Client) -> threading.Thread:
    thread = threading.Thread(
        target=lambda: http.post("/v1/chat/completions", json={"model": "m", "messages": []})
    )
    thread.start()
    assert Provider.arrived.wait(10)
    return thread


def test_the_relay_holds_the_clock_for_a_model_call_and_records_both_times(relayed):
    http, gen, env, wall, trace, recorded = relayed
    assert http.get("/v1/models").status_code == 200  # not a model call: holds nothing
    assert env.pauses == 0
    thread = _post_in_background(http)
    assert env.state == PAUSED  # the call is at the provider
    wall.now += 3
    Provider.gate.set()
    thread.join(10)
    assert env.state == RUNNING and env.sim() == 3
    assert recorded[-1] == {"status": 200, "sim_started_at": START, "sim_duration_s": 3.0}
    call = [json.loads(line) for line in trace.path.read_text().splitlines()][-1]
    assert (call["sim_started_at"], call["sim_duration_s"]) == (START, 3.0)
    assert call["latency_ms"] >= 0 and call["timestamp"] > 1.7e9  # the wall times stay


def test_a_call_the_provider_never_answers_ends_at_the_relays_window_and_releases_the_clock(relayed):
    http, gen, env, wall, trace, recorded = relayed
    thread = _post_in_background(http)  # the gate stays shut: the relay gives up after its 2 s window
    wall.now += 2
    thread.join(15)
    assert not thread.is_alive()
    assert env.state == RUNNING and env.sim() == 0  # a provider that never answers costs the model nothing
    assert recorded[-1]["status"] is None and recorded[-1]["sim_duration_s"] == 0.0
    assert env.pauses == 1 and gen.summary()["held_s"] == 2.0  # though the clock was held meanwhile


def test_the_relay_charges_a_429_nothing_and_the_200_after_it_its_span(relayed):
    http, gen, env, wall, trace, recorded = relayed
    Provider.statuses = [429]
    thread = _post_in_background(http)
    assert env.state == PAUSED  # held while the provider decides
    wall.now += 4
    Provider.gate.set()
    thread.join(10)
    assert env.state == RUNNING and env.sim() == 0
    assert recorded[-1] == {"status": 429, "sim_started_at": START, "sim_duration_s": 0.0}
    Provider.gate.clear()
    Provider.arrived.clear()
    thread = _post_in_background(http)
    wall.now += 3
    Provider.gate.set()
    thread.join(10)
    assert recorded[-1] == {"status": 200, "sim_started_at": START, "sim_duration_s": 3.0}
    assert env.sim() == 3 and gen.summary()["advanced_s"] == 3.0
