"""Who owns a container (labels, liveness of the owning runner) and the container's lifetime limits.

Unit tests: real processes and /proc, no podman. The kill -9 path with real containers is in
tests/redteam/test_redteam_orphans.py.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaia2_container.daemon.agent.process import agent_environment  # noqa: E402
from gaia2_container.daemon.agent.watchdog import LOADING_IDLE_S, Limits, Watchdog  # noqa: E402
from gaia2_contract import constants as contract
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env, idle_timeout
from gaia2_runner.sandbox import ownership
from gaia2_runner.sandbox.leftovers import SWEEP_ENV, sweep_wanted
from gaia2_runner.sandbox.ownership import (
    ALIVE,
    DEAD,
    OTHER_BOOT,
    OTHER_HOST,
    OTHER_NAMESPACE,
    UNKNOWN,
    Owner,
    owner_state,
)


def test_labels_name_this_process_with_its_start_time():
    labels = ownership.container_labels("demo/x", "/out/demo")
    assert labels[ownership.LABEL_RUNNER] == "1" and labels[ownership.LABEL_SCENARIO_ID] == "demo/x"
    assert labels[ownership.LABEL_OUTPUT_DIR] == "/out/demo"
    assert labels[ownership.LABEL_PID] == str(os.getpid())
    assert labels[ownership.LABEL_HOST] == socket.gethostname()
    stat = Path("/proc/self/stat").read_text()
    assert labels[ownership.LABEL_START_TIME] == stat[stat.rindex(")") + 2 :].split()[19]
    assert labels[ownership.LABEL_BOOT_ID] == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert len(labels[ownership.LABEL_INVOCATION]) == 12
    # Same invocation for every container of this process; labels round-trip.
    assert (
        ownership.container_labels("y", None)[ownership.LABEL_INVOCATION]
        == labels[ownership.LABEL_INVOCATION]
    )
    assert Owner.from_labels(labels) == ownership.current_owner()
    assert Owner.from_labels({ownership.LABEL_RUNNER: "1"}) is None


def test_a_running_runner_is_alive_and_the_checks_are_strict():
    me = ownership.current_owner()
    assert owner_state(me) == ALIVE
    assert owner_state(None) == UNKNOWN
    assert owner_state(dataclasses.replace(me, host=me.host + "-elsewhere")) == OTHER_HOST
    # The same pid with another start time: the pid was reused, the owner is gone.
    assert owner_state(dataclasses.replace(me, start_time=str(int(me.start_time) + 1))) == DEAD
    # Another boot id: this machine rebooted, or another machine has the same name: nobody can tell.
    assert owner_state(dataclasses.replace(me, boot_id="0" * 36)) == OTHER_BOOT
    # Another pid or time namespace (a runner in a container): its pid and start time mean nothing here.
    assert owner_state(dataclasses.replace(me, namespaces="pid:[1] time:[2]")) == OTHER_NAMESPACE
    # A label missing (an older runner, or one without /proc) is never taken for a dead owner.
    for field in ("boot_id", "start_time", "namespaces"):
        assert owner_state(dataclasses.replace(me, **{field: ""})) == UNKNOWN, field
    assert Owner.from_labels({**me.labels(), ownership.LABEL_PID: "-1"}) is None


def test_an_unreadable_proc_makes_every_owner_uncertain(monkeypatch):
    me = ownership.current_owner()
    gone = dataclasses.replace(me, pid=_free_pid())
    assert owner_state(gone) == DEAD
    monkeypatch.setattr(ownership, "_proc_is_ours", lambda: False)  # /proc of another namespace, or none
    assert owner_state(gone) == UNKNOWN


def _free_pid() -> int:
    """A pid no process has now (a child that exited and was reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_runner_in_another_pid_namespace_is_never_taken_for_dead():
    """A real process in its own pid namespace (as a runner in a container is): its pid (1 or 2
    there) names another process here, or none; either way its containers are not leftovers."""
    code = (
        "import json; from gaia2_runner.sandbox import ownership; "
        "print(json.dumps(ownership.container_labels('x', None)))"
    )
    done = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    owner = Owner.from_labels(json.loads(done.stdout))
    assert owner is not None and owner.pid < 10 and owner.namespaces != ownership.current_owner().namespaces
    assert (
        owner_state(owner) == OTHER_NAMESPACE
    )  # the old check said DEAD: pid 1 or 2 is another process here


@pytest.mark.parametrize(
    ("setting", "env", "wanted"),
    [
        (None, {}, True),
        (None, {SWEEP_ENV: "0"}, False),
        (None, {SWEEP_ENV: "off"}, False),
        (None, {SWEEP_ENV: "1"}, True),
        (True, {SWEEP_ENV: "0"}, True),
        (False, {}, False),
    ],
)
def test_the_sweep_setting_wins_over_the_variable(setting, env, wanted):
    assert sweep_wanted(setting, env) is wanted


def test_a_bad_sweep_variable_is_one_error():
    with pytest.raises(Gaia2Error, match=f"{SWEEP_ENV}='maybe': use 0"):
        sweep_wanted(None, {SWEEP_ENV: "maybe"})


def test_no_sweep_flag_and_toml_reach_the_run_settings(tmp_path):
    from gaia2_runner.cli.options import settings_named, with_settings
    from gaia2_runner.config import load_config

    seen = []
    command = with_settings(settings_named("run"))(lambda settings: seen.append(settings["sweep"]))
    command(**{name: False for name in inspect.signature(command).parameters})
    command(**{name: name == "sweep" for name in inspect.signature(command).parameters})
    assert seen == [None, False]  # not given: the config or GAIA2_SWEEP decides; --no-sweep: off
    toml = tmp_path / "run.toml"
    toml.write_text("[run]\nsweep = false\n")
    assert load_config(toml).run.sweep is False


def test_an_exited_runner_is_dead_even_before_its_parent_reaps_it():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stat = Path(f"/proc/{child.pid}/stat").read_text()
        owner = dataclasses.replace(
            ownership.current_owner(), pid=child.pid, start_time=stat[stat.rindex(")") + 2 :].split()[19]
        )
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
    env = container_env(None, scenario_timeout=100, health_timeout=30, runtime="oracle")
    assert env[contract.ENV_IDLE_TIMEOUT] == str(contract.DEFAULT_IDLE_TIMEOUT_S)
    # The container's deadline comes after the runner's own (health + run + grace) plus collection.
    assert int(env[contract.ENV_DEADLINE]) > 30 + 100 + 15
    monkeypatch.setenv(contract.ENV_IDLE_TIMEOUT, "5")
    assert container_env(None, scenario_timeout=10)[contract.ENV_IDLE_TIMEOUT] == "5"


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


def test_the_agent_never_sees_the_hosts_proxy_settings():
    """A proxy URL may carry a password; the agent reaches nothing but 127.0.0.1 anyway."""
    proxies = {name: "http://user:pa55@proxy.example:3128" for name in contract.PROXY_VARS}
    env = agent_environment({**proxies, "KEEP": "1"})
    assert not set(contract.PROXY_VARS) & set(env) and env["KEEP"] == "1"


def test_daemon_limits_from_the_environment():
    limits = Limits.from_env({}, 300.0)
    assert limits.idle_s == contract.DEFAULT_IDLE_TIMEOUT_S
    assert limits.deadline_s == 300 + contract.DEFAULT_DEADLINE_GRACE_S
    limits = Limits.from_env({contract.ENV_IDLE_TIMEOUT: "5", contract.ENV_DEADLINE: "90"}, 300.0)
    assert (limits.idle_s, limits.deadline_s) == (5.0, 90.0)
    assert (
        Limits.from_env({contract.ENV_IDLE_TIMEOUT: "junk"}, None).idle_s == contract.DEFAULT_IDLE_TIMEOUT_S
    )
    assert Limits.from_env({}, None).deadline_s is None


def test_watchdog_limits():
    dog = Watchdog(Limits(idle_s=5.0, deadline_s=100.0), started=1.0)
    assert dog.check(5.9) is None
    assert dog.check(6.0) == ("error", "runner gone: no request from it for 5s")
    # The hard deadline comes first, however often the runner polls.
    assert dog.check(101.0) == ("error", "container deadline of 100s passed")


def test_a_warm_containers_deadline_counts_from_its_assignment():
    """Waiting in the pool only the idle timeout applies; the scenario's deadline starts when the
    runner gives it (a spare may wait minutes for its run)."""
    dog = Watchdog(Limits.from_env({contract.ENV_IDLE_TIMEOUT: "60"}, None), started=1.0)
    assert dog.limits.deadline_s is None
    assert dog.check(50.0) is None
    dog.rearm(Limits.from_env({contract.ENV_DEADLINE: "90"}, 30.0))
    now = dog.started
    assert dog.check(now + 59.0) is None
    assert dog.check(now + 90.0) == ("error", "container deadline of 90s passed")


def test_a_starved_load_is_not_taken_for_a_gone_runner_but_a_hung_one_still_ends():
    """While the daemon loads, a CPU-starved container may not hear its runner for longer than a
    short idle timeout: silence then counts against LOADING_IDLE_S, and the idle clock restarts when
    the load ends. The deadline counts throughout; a load that hangs still ends the container."""
    started = time.monotonic()
    dog = Watchdog(Limits(idle_s=5.0, deadline_s=1000.0), started=started)
    with dog.loading():
        begun = dog.loading_since
        assert begun is not None
        assert dog.check(dog.last_seen + 30.0) is None
        assert dog.check(dog.last_seen + LOADING_IDLE_S) == (
            "error",
            f"runner gone: no request from it for {LOADING_IDLE_S:g}s",
        )
        assert dog.check(started + 1000.0) == ("error", "container deadline of 1000s passed")
    assert dog.loading_since is None and dog.last_seen >= begun
    assert dog.check(dog.last_seen + 4.9) is None
    assert dog.check(dog.last_seen + 5.0) == ("error", "runner gone: no request from it for 5s")
    # An idle timeout longer than the allowance is kept while loading; none stays none.
    long = Watchdog(Limits(idle_s=LOADING_IDLE_S * 2, deadline_s=None), started=1.0)
    with long.loading():
        assert long.check(long.last_seen + LOADING_IDLE_S + 1) is None
    never = Watchdog(Limits(idle_s=None, deadline_s=None), started=1.0)
    with never.loading():
        assert never.check(1e9) is None


def test_watchdog_counts_only_requests_with_the_adapter_token():
    """Over real HTTP: the agent (no token, or a guess) cannot keep an abandoned container alive."""
    import urllib.error
    import urllib.request

    from gaia2_container.daemon.http.server import serve

    dog = Watchdog(Limits(idle_s=5.0, deadline_s=None), started=1.0)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = serve(
        "127.0.0.1",
        port,
        {("GET", "/status"): lambda _h, _q, _b: (200, {"status": "running"})},
        None,
        "test",
        token="tok",
        public_routes=frozenset({("GET", "/health")}),
        on_request=dog.touch,
    )
    try:
        for headers in ({}, {"Authorization": "Bearer guess"}):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/status", headers=headers)
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(request, timeout=5)
            assert info.value.code == 401
        assert dog.last_seen == 1.0
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/status", headers={"Authorization": "Bearer tok"}
        )
        assert urllib.request.urlopen(request, timeout=5).status == 200
        seen = dog.last_seen
        assert seen > 1.0 and dog.check(seen + 4.9) is None and dog.check(seen + 5.0) is not None
    finally:
        server.shutdown()
