"""stop_process: the runner's helpers (private podman service, ssh master) end on request, and
one that ignores the request is killed after its grace period instead of hanging the runner."""

from __future__ import annotations

import subprocess
import sys
import time

from ctrl_c import restore_ctrl_c
from gaia2_runner.sandbox.processes import stop_process

POLITE = "import time; print('up', flush=True); time.sleep(600)"
STUBBORN = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); "
    "time.sleep(600)"
)


def started(script: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, preexec_fn=restore_ctrl_c
    )
    assert proc.stdout.readline().strip() == "up"  # its signal handling is in place
    return proc


def test_a_helper_that_ends_on_sigterm_ends_there():
    proc = started(POLITE)
    stop_process(proc, grace_s=30)
    assert proc.returncode == -15


def test_a_helper_that_ignores_the_request_is_killed_after_the_grace_period():
    proc = started(STUBBORN)
    begun = time.monotonic()
    stop_process(proc, grace_s=1)
    assert proc.returncode == -9 and time.monotonic() - begun >= 1


def test_the_request_can_be_the_helpers_own_and_an_ended_helper_is_left_alone():
    proc = started(POLITE)
    asked: list[int] = []
    stop_process(proc, ask=lambda: (asked.append(proc.pid), proc.send_signal(2)), grace_s=30)
    assert asked == [proc.pid] and proc.returncode == -2  # its own request: SIGINT
    stop_process(proc, ask=lambda: asked.append(0))
    assert asked == [proc.pid]
