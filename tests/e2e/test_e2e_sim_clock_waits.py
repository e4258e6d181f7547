"""Timed waits under the agent's simulated process clock (containers/simclock.c), in a container.

A program computes an absolute CLOCK_REALTIME deadline from the shifted clock (2024) and hands it to
pthread_cond_timedwait / sem_timedwait, where the kernel compares it with the real clock. Unless
libsimclock moves such deadlines back, every wait returns at once and the waiting threads spin:
Claude Code's Bun binary spent most of each turn in ~50,000 ETIMEDOUT futex calls.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

CALENDAR = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"

WAITS = r"""
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
class TS(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]
def deadline(now, secs):
    return TS(int(now + secs), int(((now + secs) % 1) * 1e9))
def timed(label, call):
    t0 = time.monotonic(); rc = call(); print(label, rc, round(time.monotonic() - t0, 2), flush=True)
mutex = ctypes.create_string_buffer(64); libc.pthread_mutex_lock(mutex)
cond = ctypes.create_string_buffer(64)
timed("COND", lambda: libc.pthread_cond_timedwait(cond, mutex, ctypes.byref(deadline(time.time(), 1.0))))
attr = ctypes.create_string_buffer(8); libc.pthread_condattr_init(attr); libc.pthread_condattr_setclock(attr, 1)
mono = ctypes.create_string_buffer(64); libc.pthread_cond_init(mono, attr)
timed("MONO", lambda: libc.pthread_cond_timedwait(mono, mutex, ctypes.byref(deadline(time.clock_gettime(1), 1.0))))
sem = ctypes.create_string_buffer(64); libc.sem_init(sem, 0, 0)
timed("SEM", lambda: libc.sem_timedwait(sem, ctypes.byref(deadline(time.time(), 1.0))))
print("YEAR", time.gmtime().tm_year, flush=True)
"""


def test_timed_waits_on_the_simulated_clock_last_as_long_as_asked(images, tmp_path: Path):
    agent = {"GAIA2_AGENT_COMMAND": f"python3 -c {shlex.quote(WAITS)}"}
    result = run_scenario(CALENDAR, ORACLE_IMAGE, tmp_path, extra_env=agent)
    log = (tmp_path / result.scenario_id / "agent.log").read_text()
    assert "YEAR 2024" in log, log  # the clock is the scenario's
    waits = {
        line.split()[0]: (int(line.split()[1]), float(line.split()[2]))
        for line in log.splitlines()
        if line.split()[:1] in (["COND"], ["MONO"], ["SEM"])
    }
    assert waits["COND"][0] == 110 and waits["COND"][1] >= 0.9, log  # ETIMEDOUT after the second asked
    assert waits["MONO"][0] == 110 and waits["MONO"][1] >= 0.9, log  # a monotonic deadline is left alone
    assert waits["SEM"][0] == -1 and waits["SEM"][1] >= 0.9, log
