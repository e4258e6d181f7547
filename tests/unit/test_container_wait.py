"""ContainerHandle.wait_exited over scripted podman states (no podman): "stopped" is podman still
cleaning up, so only "exited" or a gone container is done; an unanswered inspect is nobody's word."""

from __future__ import annotations

import itertools

import pytest

from gaia2_runner.sandbox import container_handle as handle_module
from gaia2_runner.sandbox.container_handle import ContainerHandle

STOPPED = {"Status": "stopped", "Running": False}
EXITED = {"Status": "exited", "Running": False}
RUNNING = {"Status": "running", "Running": True}


def handle_with(states, monkeypatch) -> tuple[ContainerHandle, list]:
    seen = []
    feed = itertools.chain(states, itertools.repeat(states[-1]))
    handle = ContainerHandle(cid="c", name="c", host_port=0, sandbox=None)  # type: ignore[arg-type]

    def state():
        seen.append(next(feed))
        return seen[-1]

    monkeypatch.setattr(handle, "state", state)
    monkeypatch.setattr(handle_module.time, "sleep", lambda _s: None)
    return handle, seen


@pytest.mark.parametrize(
    "states", [[RUNNING, RUNNING, STOPPED, STOPPED, EXITED], [None, RUNNING, EXITED], [{}]]
)
def test_waits_through_stopped_until_exited_or_gone(states, monkeypatch):
    handle, seen = handle_with(states, monkeypatch)
    assert handle.wait_exited(30) is True
    assert seen == states  # asked until the last one, not a poll more


def test_stopped_for_good_counts_after_the_grace(monkeypatch):
    clock = itertools.count(0.0, 1.0)  # one second per look
    monkeypatch.setattr(handle_module.time, "monotonic", lambda: next(clock))
    handle, seen = handle_with([STOPPED], monkeypatch)
    assert handle.wait_exited(600) is True
    waited = next(clock)  # the fake clock's seconds when it gave up waiting
    assert len(seen) > 1 and handle_module.STOPPED_GRACE_S <= waited <= 3 * handle_module.STOPPED_GRACE_S


@pytest.mark.parametrize("state", [RUNNING, None])
def test_running_or_unanswered_until_the_timeout_is_not_exited(state, monkeypatch):
    clock = itertools.count(0.0, 1.0)
    monkeypatch.setattr(handle_module.time, "monotonic", lambda: next(clock))
    handle, seen = handle_with([state], monkeypatch)
    assert handle.wait_exited(20) is False and len(seen) >= 5 and next(clock) >= 20
