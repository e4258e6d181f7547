"""Who owns a container (labels, liveness of the owning runner) and the container's lifetime limits.

Unit tests: real processes and /proc, no podman. The kill -9 path with real containers is in
tests/test_redteam_orphans.py.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaia2_runner import contract
from gaia2_runner.engine.scenario_run import contract_env, idle_timeout
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox import ownership
from gaia2_runner.sandbox.ownership import ALIVE, DEAD, OTHER_HOST, UNKNOWN, Owner, owner_state

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "containers"))
from gaia2_container.daemon.agent_process import agent_environment  # noqa: E402
from gaia2_container.daemon.watchdog import Limits, Watchdog  # noqa: E402


def test_labels_name_this_process_with_its_start_time():
    labels = ownership.container_labels("demo/x", "/out/demo")
    assert labels[ownership.LABEL_RUNNER] == "1" and labels[ownership.LABEL_SCENARIO_ID] == "demo/x"
    assert labels[ownership.LABEL_OUTPUT_DIR] == "/out/demo"
    assert labels[ownership.LABEL_PID] == str(os.getpid())
    assert labels[ownership.LABEL_HOST] == socket.gethostname()
    stat = Path("/proc/self/stat").read_text()
    assert labels[ownership.LABEL_START_TIME] == stat[stat.rindex(")") + 2:].split()[19]
    assert labels[ownership.LABEL_BOOT_ID] == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert len(labels[ownership.LABEL_INVOCATION]) == 12
    # Same invocation for every container of this process; labels round-trip.
    assert ownership.container_labels("y", None)[ownership.LABEL_INVOCATION] == labels[ownership.LABEL_INVOCATION]
    assert Owner.from_labels(labels) == ownership.current_owner()
    assert Owner.from_labels({ownership.LABEL_RUNNER: "1"}) is None


def test_a_running_runner_is_alive_and_the_checks_are_strict():
    me = ownership.current_owner()
    assert owner_state(me) == ALIVE
    assert owner_state(None) == UNKNOWN
    assert owner_state(dataclasses.replace(me, host=me.host + "-elsewhere")) == OTHER_HOST
    # The same pid with another start time: the pid was reused, the owner is gone.
    assert owner_state(dataclasses.replace(me, start_time=str(int(me.start_time) + 1))) == DEAD
    # Another boot: every process of that boot is gone.
    assert owner_state(dataclasses.replace(me, boot_id="0" * 36)) == DEAD


def test_an_exited_runner_is_dead_even_before_its_parent_reaps_it():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stat = Path(f"/proc/{child.pid}/stat").read_text()
        owner = Owner(host=socket.gethostname(), boot_id=ownership.current_owner().boot_id, pid=child.pid,
                      start_time=stat[stat.rindex(")") + 2:].split()[19], invocation="x")
        assert owner_state(owner) == ALIVE
        os.kill(child.pid, signal.SIGKILL)
        while Path(f"/proc/{child.pid}/stat").read_text().split(") ")[1][0] != "Z":
            time.sleep(0.01)  # until the kernel has made it a zombie (not reaped: we have not waited)
        assert owner_state(owner) == DEAD
    finally:
        child.kill()
        child.wait()
    assert owner_state(owner) == DEAD  # reaped: no /proc entry at all


def test_container_env_carries_the_lifetime(monkeypatch):
    monkeypatch.delenv(contract.ENV_IDLE_TIMEOUT, raising=False)
    env = contract_env("oracle", 100, health_timeout=30)
    assert env[contract.ENV_IDLE_TIMEOUT] == str(contract.DEFAULT_IDLE_TIMEOUT_S)
    # The container's deadline comes after the runner's own (health + run + grace) plus collection.
    assert int(env[contract.ENV_DEADLINE]) > 30 + 100 + 15
    monkeypatch.setenv(contract.ENV_IDLE_TIMEOUT, "5")
    assert contract_env(None, 10)[contract.ENV_IDLE_TIMEOUT] == "5"


@pytest.mark.parametrize("raw", ["abc", "-1", "0.5", "inf"])
def test_bad_idle_timeout_is_one_error(monkeypatch, raw):
    monkeypatch.setenv(contract.ENV_IDLE_TIMEOUT, raw)
    with pytest.raises(Gaia2Error, match=contract.ENV_IDLE_TIMEOUT):
        idle_timeout()


def test_idle_timeout_zero_disables_the_watchdog(monkeypatch):
    monkeypatch.setenv(contract.ENV_IDLE_TIMEOUT, "0")
    assert idle_timeout() == 0
    assert Limits.from_env({contract.ENV_IDLE_TIMEOUT: "0"}, None).idle_s is None


def test_the_agent_never_sees_the_adapter_token():
    env = agent_environment({contract.ENV_ADAPTER_TOKEN: "secret", "GAIA2_JUDGE_API_KEY": "k", "KEEP": "1"})
    assert contract.ENV_ADAPTER_TOKEN not in env and "GAIA2_JUDGE_API_KEY" not in env and env["KEEP"] == "1"


def test_daemon_limits_from_the_environment():
    limits = Limits.from_env({}, 300.0)
    assert limits.idle_s == contract.DEFAULT_IDLE_TIMEOUT_S
    assert limits.deadline_s == 300 + contract.DEFAULT_DEADLINE_GRACE_S
    limits = Limits.from_env({contract.ENV_IDLE_TIMEOUT: "5", contract.ENV_DEADLINE: "90"}, 300.0)
    assert (limits.idle_s, limits.deadline_s) == (5.0, 90.0)
    assert Limits.from_env({contract.ENV_IDLE_TIMEOUT: "junk"}, None).idle_s == contract.DEFAULT_IDLE_TIMEOUT_S
    assert Limits.from_env({}, None).deadline_s is None


def test_watchdog_limits():
    dog = Watchdog(Limits(idle_s=5.0, deadline_s=100.0), started=1.0)
    assert dog.check(5.9) is None
    assert dog.check(6.0) == ("error", "runner gone: no request from it for 5s")
    # The hard deadline comes first, however often the runner polls.
    assert dog.check(101.0) == ("error", "container deadline of 100s passed")


def test_watchdog_counts_only_requests_with_the_adapter_token():
    """Over real HTTP: the agent (no token, or a guess) cannot keep an abandoned container alive."""
    import urllib.error
    import urllib.request

    from gaia2_container.daemon.http_api import serve

    dog = Watchdog(Limits(idle_s=5.0, deadline_s=None), started=1.0)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = serve("127.0.0.1", port, {("GET", "/status"): lambda _h, _q, _b: (200, {"status": "running"})},
                   None, "test", token="tok", public_routes=frozenset({("GET", "/health")}), on_request=dog.touch)
    try:
        for headers in ({}, {"Authorization": "Bearer guess"}):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/status", headers=headers)
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(request, timeout=5)
            assert info.value.code == 401
        assert dog.last_seen == 1.0
        request = urllib.request.Request(f"http://127.0.0.1:{port}/status", headers={"Authorization": "Bearer tok"})
        assert urllib.request.urlopen(request, timeout=5).status == 200
        seen = dog.last_seen
        assert seen > 1.0 and dog.check(seen + 4.9) is None and dog.check(seen + 5.0) is not None
    finally:
        server.shutdown()
