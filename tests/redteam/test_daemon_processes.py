"""The daemon's hold on the agent's processes, with real processes of a user of their own.

An agent user's process tree (children, grandchildren that left the session) and a live fork
bomb (bounded here by RLIMIT_NPROC on a uid nothing else uses) are all gone after
`kill_user_processes`; when no thread can be started, the judge runs inline after the agent's
processes are stopped."""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time

import pytest

from gaia2_container.daemon.processes import OWN_CHILDREN, kill_user_processes, processes_of, start_thread  # noqa: E402
from polling import until

pytestmark = pytest.mark.redteam
UID = 54321  # a uid no account on the machine has
PYTHON = "/usr/bin/python3"

TREE = """
import os, sys, time
for i in range(8):
    if os.fork() == 0:
        if i % 2:
            os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        time.sleep(600)
print("ready", flush=True)
time.sleep(600)
"""

BOMB = """
import os, signal, time
print("ready", flush=True)
while True:
    try:
        os.kill(-1, signal.SIGCONT)  # undoes any SIGSTOP of its fellows (all of its own uid)
        os.fork()
    except OSError:
        time.sleep(0.01)
"""


def as_agent(script: str, nproc: int) -> subprocess.Popen:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

    proc = subprocess.Popen(
        [PYTHON, "-c", script],
        user=UID,
        group=UID,
        extra_groups=[],
        preexec_fn=limit,
        stdout=subprocess.PIPE,
        text=True,
        cwd="/",
    )
    OWN_CHILDREN.add(proc.pid)  # as the daemon's runtime: its exit status is the test's
    assert proc.stdout.readline().strip() == "ready"
    return proc


def gone_but_zombies(wait_s: float = 10) -> dict:
    """The uid's processes once the machine's init reaped what it inherited (zombies aside)."""
    deadline = time.monotonic() + wait_s
    while (
        alive := {p: s for p, s in processes_of(UID).items() if s[0] != "Z"}
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


@pytest.fixture(autouse=True)
def needs_root():
    assert os.geteuid() == 0, "these tests start processes as another user: run them as root (CI does)"
    kill_user_processes(UID)  # whatever an interrupted run left
    yield
    kill_user_processes(UID)  # whatever a failed test left
    OWN_CHILDREN.clear()


def test_a_process_tree_is_killed_to_the_last_grandchild():
    proc = as_agent(TREE, nproc=64)
    assert until(lambda: len(processes_of(UID)) == 17)  # the children fork the grandchildren
    assert kill_user_processes(UID) == 17
    assert proc.wait(timeout=10) == -9
    assert gone_but_zombies() == {}


def test_a_live_fork_bomb_that_continues_its_fellows_is_killed():
    proc = as_agent(BOMB, nproc=300)
    assert until(lambda: len(processes_of(UID)) > 100)  # and it keeps trying
    assert kill_user_processes(UID) > 100
    proc.wait(timeout=10)
    # Killed, but a busy machine (the parallel suite) can hold 300 dying processes in D state for
    # more than 10 s while they exit.
    assert gone_but_zombies(wait_s=60) == {}


def test_root_is_never_a_target():
    with pytest.raises(ValueError):
        kill_user_processes(0)


def test_without_a_thread_the_judge_runs_inline_after_making_room(monkeypatch):
    calls: list[str] = []

    def no_thread(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", no_thread)
    start_thread(
        lambda: calls.append(threading.current_thread().name), "final-judge", lambda: calls.append("room")
    )
    assert calls == ["room", threading.current_thread().name]
