"""The simulated clock's parts that need no ARE: the speed setting, the oracle-only clock endpoint
over real HTTP, and the agent's clock file (daemon/clock/sim.py, routes.py, process_clock.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from gaia2_container.daemon.clock.process import ProcessClock, fakes_agent  # noqa: E402
from gaia2_container.daemon.clock.sim import SimClock, parse_speed  # noqa: E402
from gaia2_container.daemon.http.routes import TOOL_ROUTES, DaemonState  # noqa: E402
from gaia2_container.daemon.http.server import serve  # noqa: E402
from gaia2_container.daemon.session.recorder import EventRecorder  # noqa: E402
from gaia2_container.daemon.session.status import StatusBoard  # noqa: E402


def test_time_speed_values():
    assert parse_speed(None) == parse_speed("") == 1.0
    assert parse_speed("2.5") == 2.5 and parse_speed("100") == 100.0
    for bad in ("0.5", "0", "101", "nan", "inf", "fast", "-3"):
        with pytest.raises(ValueError, match="GAIA2_TIME_SPEED"):
            parse_speed(bad)


class ManualClock(SimClock):
    """The real SimClock in manual mode, its advance() recorded instead of ticking ARE."""

    def __init__(self) -> None:
        super().__init__(manual=True)
        self.asked: list[tuple[float | None, float]] = []

    def advance(self, until, max_seconds=3600.0):
        self.asked.append((until, max_seconds))
        return {"sim_time": until or 0.0, "reason": "reached"}


@pytest.fixture
def tools(tmp_path: Path):
    state = DaemonState(
        runtime="oracle",
        status=StatusBoard(tmp_path / "status.json", "demo", "oracle"),
        recorder=EventRecorder(tmp_path / "events.jsonl"),
    )
    server = serve("127.0.0.1", 0, TOOL_ROUTES, state, "tools")
    with httpx.Client(
        base_url=f"http://127.0.0.1:{server.server_address[1]}", trust_env=False, timeout=5
    ) as http:
        yield SimpleNamespace(state=state, http=http)
    server.shutdown()
    server.server_close()
    state.recorder.close()


def test_only_the_builtin_oracle_moves_the_clock(tools):
    clock = ManualClock()
    tools.state.session = SimpleNamespace(
        clock=clock, sim_time=lambda: 1727773200.0, scenario=SimpleNamespace(start_time=1727773200.0)
    )
    # Any agent command (serves_oracle False): 403, and nothing moved.
    resp = tools.http.post("/oracle/advance", json={"until": 1e12})
    assert resp.status_code == 403 and clock.asked == []
    tools.state.serves_oracle = True
    for body in ({"until": "soon"}, {"until": True}, {"max_seconds": 0}, {"max_seconds": -1}):
        assert tools.http.post("/oracle/advance", json=body).status_code == 400, body
    assert clock.asked == []
    resp = tools.http.post("/oracle/advance", json={"until": 1727773320})
    assert resp.status_code == 200 and resp.json() == {"sim_time": 1727773320.0, "reason": "reached"}
    assert tools.http.post("/oracle/advance", json={"until": None}).status_code == 200
    assert clock.asked == [(1727773320.0, 3600.0), (None, 3600.0)]
    assert tools.http.get("/time").json()["clock"] == "manual"
    # A real clock (agents) cannot be moved at all.
    tools.state.session = SimpleNamespace(
        clock=SimClock(speed=3.0),
        sim_time=lambda: 1727773200.0,
        scenario=SimpleNamespace(start_time=1727773200.0),
    )
    assert tools.http.post("/oracle/advance", json={"until": 1e12}).status_code == 409
    assert tools.http.get("/time").json() | {"wall_time": 0} == {
        "sim_time": 1727773200.0,
        "wall_time": 0,
        "start_time": 1727773200.0,
        "clock": "real",
        "time_speed": 3.0,
    }


def test_agent_clock_file_holds_the_offset_and_is_read_only_to_others(tmp_path: Path):
    now = [1727773200.0]
    clock = ProcessClock(lambda: now[0], tmp_path / "clock")
    clock.prepare()
    offset = float(clock.path.read_text())
    assert offset < -60_000_000  # 2024 seen from today
    assert stat.S_IMODE(os.stat(clock.path).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(clock.directory).st_mode) == 0o755
    now[0] += 3600  # a wait_for_notification jump
    clock.update()
    assert float(clock.path.read_text()) == pytest.approx(offset + 3600, abs=1)
    assert sorted(p.name for p in clock.directory.iterdir()) == ["offset"]  # no temp file left
    env = clock.agent_env()
    if env:  # the image has libsimclock; a host may not
        assert env == {"LD_PRELOAD": "/opt/gaia2/libsimclock.so", "GAIA2_SIMCLOCK_FILE": str(clock.path)}


def test_which_agents_get_the_simulated_clock():
    assert fakes_agent(True, {}) is True
    assert fakes_agent(True, {"GAIA2_AGENT_REAL_CLOCK": "1"}) is False
    assert fakes_agent(False, {}) is False  # built-in runtimes keep real clocks
