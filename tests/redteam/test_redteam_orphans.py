"""No orphans: a runner killed with -9 leaves no scenario container running, and nothing behind.

Real runner processes (`python -m gaia2_runner.cli run`), real containers, real kill -9:
- the killed runner's container stops by itself (daemon watchdog), even with an agent inside
  polling the adapter API to keep it alive; `clean --dry-run` lists it, `clean` removes it;
- the next invocation removes a dead runner's container (still running or not) before it starts
  its own, and never the container of a runner that still runs (nor does `clean` without --all);
- a private podman service dies with its runner.

The time a container survived its runner is printed (`pytest -s`) and recorded as a property.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from container_probe import daemon_status, exists, handle_of, is_running, output_file, running
from gaia2_contract import constants as contract
from gaia2_runner.sandbox.engine import ContainerRecord
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.sandbox.ownership import LABEL_PID
from gaia2_runner.sandbox.warm_pool import WARM_SCENARIO_LABEL

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
LONG_SCENARIO = DEMO / "demo_env_message_pickup.json"  # 300 s of simulated time: outlives the test steps
QUICK_SCENARIO = DEMO / "demo_calendar_add_event.json"
SHORT_IDLE_S = 5
# The watchdog fires SHORT_IDLE_S after the runner's last poll; the daemon then stops the agent
# (3 s grace) and writes its files. Anything much beyond that is a bug.
SURVIVAL_BOUND_S = SHORT_IDLE_S + 15

# An agent that tries to keep an abandoned container alive: it polls the adapter API from inside,
# with the runner's token if it can find it anywhere (it must not).
KEEPALIVE_AGENT = r"""
import json, os, time, urllib.request
found = {"token_in_env": "GAIA2_ADAPTER_TOKEN" in os.environ}
token = None
try:
    for item in open("/proc/1/environ", "rb").read().split(b"\0"):
        if item.startswith(b"GAIA2_ADAPTER_TOKEN="):
            token = item.split(b"=", 1)[1].decode()
    found["pid1_environ"] = "readable"
except OSError as exc:
    found["pid1_environ"] = type(exc).__name__
found["token_found"] = token is not None
print("KEEPALIVE " + json.dumps(found), flush=True)
headers = {"Authorization": "Bearer " + token} if token else {}
while True:
    for path in ("/status", "/health", "/messages"):
        try:
            urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:8090" + path, headers=headers),
                                   timeout=1).read()
        except Exception:
            pass
    time.sleep(0.2)
"""


def cli(*args: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args],
        capture_output=True,
        text=True,
        env=env or os.environ.copy(),
        stdin=subprocess.DEVNULL,
        timeout=300,
        **kwargs,
    )


def start_runner(
    tmp_path: Path,
    name: str,
    agent: str = "sleep 600",
    idle: int | None = None,
    prefix: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
) -> subprocess.Popen:
    """A real runner process on a long scenario whose agent never finishes by itself (`idle`: the
    daemon's idle timeout, else its default; `prefix`: a command the runner runs under)."""
    env = os.environ.copy()
    if idle is not None:
        env[contract.ENV_IDLE_TIMEOUT] = str(idle)
    log = (tmp_path / f"{name}.log").open("w")
    return subprocess.Popen(
        [
            *prefix,
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run",
            "--scenario",
            str(LONG_SCENARIO),
            "--image",
            ORACLE_IMAGE,
            "--output-dir",
            str(tmp_path / name),
            "--timeout",
            "600",
            "--env",
            f"GAIA2_AGENT_COMMAND={agent}",
            *extra,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def container_of(sandbox, runner: subprocess.Popen) -> ContainerRecord:
    """The runner's container once its scenario runs (found by the owner label, as `clean` does)."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        assert runner.poll() is None, f"runner exited early with {runner.returncode}"
        for found in running(sandbox, f"{LABEL_PID}={runner.pid}"):  # not a warm spare: it waits
            if daemon_status(sandbox, found.id) == "running":
                return found
        time.sleep(0.3)
    raise AssertionError(f"runner {runner.pid} never had a running scenario")


def kill_and_time_survival(
    sandbox, runner: subprocess.Popen, container: ContainerRecord, bound: float
) -> float:
    """kill -9 the runner; seconds until its container stopped by itself."""
    runner.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    runner.wait()
    while is_running(sandbox, container.id):
        assert time.monotonic() - killed < bound, f"container still running {bound:g}s after kill -9"
        time.sleep(0.1)
    return time.monotonic() - killed


def test_killed_runner_leaves_a_stopped_container_that_clean_removes(
    images, sandbox, tmp_path, record_property
):
    runner = start_runner(tmp_path, "killed", f"python3 -c {shlex.quote(KEEPALIVE_AGENT)}", idle=SHORT_IDLE_S)
    container = container_of(sandbox, runner)
    labels = sandbox.inspect(container.id)["Config"]["Labels"]
    assert labels["gaia2.output_dir"] == str((tmp_path / "killed" / "demo_env_message_pickup").resolve())
    assert labels["gaia2.scenario_id"] == "demo_env_message_pickup" and labels["gaia2.owner.start_time"]
    time.sleep(SHORT_IDLE_S + 1)  # the agent's polling alone has kept nothing alive; the runner's has
    assert daemon_status(sandbox, container.id) == "running"

    survived = kill_and_time_survival(sandbox, runner, container, SURVIVAL_BOUND_S)
    print(f"\ncontainer survived kill -9 of its runner by {survived:.1f}s (idle timeout {SHORT_IDLE_S}s)")
    record_property("survival_after_kill9_s", round(survived, 1))

    # It wrote its final files on the way out, and the agent never got the token. Wait until the
    # engine is done with it: read in podman's "stopped" state (process gone, cleanup running), the
    # output directory can come back empty (seen here once in CI).
    handle = handle_of(sandbox, container)
    assert handle.wait_exited(60), container.name
    status = json.loads(output_file(handle, contract.STATUS_FILE))
    assert status["status"] == "error" and "runner gone" in status["error"], status
    agent_log = output_file(handle, contract.AGENT_LOG_FILE)
    found = json.loads(agent_log.split("KEEPALIVE ", 1)[1].splitlines()[0])
    assert found == {"token_in_env": False, "pid1_environ": "PermissionError", "token_found": False}, found
    assert not (tmp_path / "killed" / "demo_env_message_pickup" / "result.json").exists()

    listed = cli("clean", "--dry-run")
    assert listed.returncode == 0, listed.stderr
    line = next(ln for ln in listed.stdout.splitlines() if container.name in ln)
    assert line.startswith("would remove") and "runner gone" in line and f"pid {runner.pid}" in line
    assert exists(sandbox, container.id)

    cleaned = cli("clean")
    assert cleaned.returncode == 0, cleaned.stderr
    assert any(ln.startswith("remove") and container.name in ln for ln in cleaned.stdout.splitlines())
    assert not exists(sandbox, container.id)


def test_a_killed_runners_warm_spare_ends_itself_too(images, sandbox, tmp_path):
    """pass@2 at concurrency 1: while the first run goes, a warm spare waits for the second. The
    runner's keep-alive holds it past its idle timeout; after kill -9 it stops by itself as the
    run's container does, and `clean` removes both."""
    runner = start_runner(
        tmp_path,
        "pooled",
        "sleep 600",
        idle=SHORT_IDLE_S,
        extra=("--pass-at", "2", "--concurrency", "1"),  # the warm pool: the default
    )
    container = container_of(sandbox, runner)
    deadline = time.monotonic() + 120
    while not (spares := [r for r in running(sandbox, f"{LABEL_PID}={runner.pid}") if r.id != container.id]):
        assert time.monotonic() < deadline and runner.poll() is None, "no warm spare was started"
        time.sleep(0.3)
    (spare,) = spares
    assert spare.labels["gaia2.scenario_id"] == WARM_SCENARIO_LABEL
    time.sleep(SHORT_IDLE_S + 2)  # longer than its idle timeout: the runner's keep-alive holds it
    assert is_running(sandbox, spare.id) and daemon_status(sandbox, spare.id) == "starting"

    runner.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    runner.wait()
    for record in (spare, container):
        while is_running(sandbox, record.id):
            assert time.monotonic() - killed < SURVIVAL_BOUND_S, f"{record.name} still running after kill -9"
            time.sleep(0.1)
    cleaned = cli("clean")
    assert cleaned.returncode == 0, cleaned.stderr
    assert not exists(sandbox, spare.id) and not exists(sandbox, container.id)


@pytest.mark.both_engines  # the cheaper of the two kill -9 tests; its sweep lists and removes per engine
def test_next_invocation_removes_dead_runners_containers_never_live_ones(images, sandbox, tmp_path):
    # The live runner also gets the short idle timeout: its polling must keep its container alive.
    live = start_runner(tmp_path, "live", "sleep 600", idle=SHORT_IDLE_S)
    dead = start_runner(tmp_path, "dead", "sleep 600", idle=None)  # default 60 s: still running below
    try:
        live_container, dead_container = container_of(sandbox, live), container_of(sandbox, dead)
        dead.send_signal(signal.SIGKILL)
        dead.wait()
        assert is_running(sandbox, dead_container.id)

        # Another invocation on the same host, while `live` runs: it removes only the dead one's.
        result = cli(
            "run",
            "--scenario",
            str(QUICK_SCENARIO),
            "--image",
            ORACLE_IMAGE,
            "--output-dir",
            str(tmp_path / "next"),
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "removed 1 container(s) left by runners that are gone" in result.stderr
        assert dead_container.name in result.stderr
        assert not exists(sandbox, dead_container.id)
        assert live.poll() is None and is_running(sandbox, live_container.id)
        assert daemon_status(sandbox, live_container.id) == "running"

        # `clean` keeps it too; `--all` asks first and, without a terminal, wants --yes.
        listed = cli("clean", "--dry-run")
        line = next(ln for ln in listed.stdout.splitlines() if live_container.name in ln)
        assert line.startswith("keep") and "runner alive" in line
        refused = cli("clean", "--all")
        assert refused.returncode == 2
        errors = [ln for ln in refused.stderr.splitlines() if ln.startswith("error:")]
        assert len(errors) == 1 and "--yes" in errors[0] and "Traceback" not in refused.stderr
        assert is_running(sandbox, live_container.id)
    finally:
        for runner in (live, dead):
            if runner.poll() is None:
                runner.send_signal(signal.SIGTERM)  # a normal stop: it removes its own container
        assert live.wait(timeout=60) == 130
    assert not exists(sandbox, live_container.id)


def test_private_podman_service_dies_with_its_runner():
    env = {k: v for k, v in os.environ.items() if k != "CONTAINER_HOST"}
    script = (
        "import time\nfrom gaia2_runner.sandbox.service import start_private_service\n"
        "print(start_private_service().process.pid, flush=True)\ntime.sleep(600)"
    )
    runner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    service_pid = int(runner.stdout.readline())
    assert b"system\0service" in Path(f"/proc/{service_pid}/cmdline").read_bytes()
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    deadline = time.monotonic() + 20
    while (
        Path(f"/proc/{service_pid}").exists()
        and Path(f"/proc/{service_pid}/stat").read_text().split(") ")[1][0] != "Z"
    ):
        assert time.monotonic() < deadline, "the private podman service outlived its runner"
        time.sleep(0.1)


def test_container_exits_at_its_deadline_even_if_nobody_collects(images, sandbox):
    """The hard limit: no watchdog on idleness (0), nobody polls or collects, the agent never ends."""
    from gaia2_runner.execution.container_env import container_env

    env = container_env(
        None,
        scenario_timeout=600,
        extra={
            "GAIA2_AGENT_COMMAND": "sleep 600",
            contract.ENV_IDLE_TIMEOUT: "0",
            contract.ENV_DEADLINE: "12",
        },
    )
    handle = sandbox.run_scenario_container(ORACLE_IMAGE, LONG_SCENARIO.read_bytes(), env, "redteam-deadline")
    try:
        started = time.monotonic()
        while handle.is_running():
            assert time.monotonic() - started < 12 + 30, "container outlived its deadline"
            time.sleep(0.2)
        assert handle.wait_exited(60)
        status = json.loads(output_file(handle, contract.STATUS_FILE))
        assert status["status"] == "error" and "deadline of 12s" in status["error"], status
        assert handle.exit_code() == 0
    finally:
        handle.cleanup(timeout=1)
