"""Runners sharing one podman host never remove each other's live containers.

Real runner processes, real containers, a real kill -9: runner A runs in a pid namespace of its
own (as a runner in a container does: its pid means nothing here, and the pid it labels its
container with is another process here), runner B starts while A runs, runner C is killed with -9.
B's sweep leaves A's container alone; later invocations remove C's leftover and nothing else, and
only when they can prove C gone (not from another pid namespace, not with --no-sweep).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_redteam_orphans import LONG_SCENARIO, QUICK_SCENARIO, cli, start_runner

from container_probe import daemon_status, exists, is_running, running
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.sandbox.ownership import LABEL_NAMESPACES, LABEL_OUTPUT_DIR

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

# --kill-child: SIGTERM to unshare reaches the runner inside (else it outlives the test, container and all)
OWN_PID_NAMESPACE = ("unshare", "--pid", "--fork", "--mount-proc", "--kill-child=SIGTERM")


def running_container(sandbox, runner: subprocess.Popen, output_dir: Path):
    """The runner's container once its scenario runs, found by its output directory label (a runner
    in its own pid namespace labels it with a pid that means nothing here)."""
    label = f"{LABEL_OUTPUT_DIR}={(output_dir / LONG_SCENARIO.stem).resolve()}"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert runner.poll() is None, f"runner exited early with {runner.returncode}"
        found = running(sandbox, label)
        if found and daemon_status(sandbox, found[0].id) == "running":
            return found[0]
        time.sleep(0.3)
    raise AssertionError(f"no running scenario for {output_dir}")


def quick_run(tmp_path: Path, name: str, *flags: str) -> subprocess.CompletedProcess:
    result = cli(
        "run",
        "--scenario",
        str(QUICK_SCENARIO),
        "--image",
        ORACLE_IMAGE,
        "--output-dir",
        str(tmp_path / name),
        *flags,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def stop(runner: subprocess.Popen) -> None:
    """SIGTERM: the runner removes its own container on the way out."""
    if runner.poll() is None:
        runner.send_signal(signal.SIGTERM)
        try:
            runner.wait(timeout=60)
        except subprocess.TimeoutExpired:
            runner.kill()
            runner.wait()


def test_runners_on_one_host_never_remove_each_others_live_containers(images, sandbox, tmp_path):
    a = start_runner(tmp_path, "a", prefix=OWN_PID_NAMESPACE)
    runners = [a]
    try:
        a_box = running_container(sandbox, a, tmp_path / "a")
        a_labels = sandbox.inspect(a_box.id)["Config"]["Labels"]
        assert a_labels[LABEL_NAMESPACES] != ""
        assert a_labels["gaia2.owner.pid"] != str(a.pid)  # A's pid in its namespace

        b = start_runner(tmp_path, "b")  # swept before its container started, while A runs
        runners.append(b)
        b_box = running_container(sandbox, b, tmp_path / "b")
        assert is_running(sandbox, a_box.id), "B's sweep touched A's container"
        assert "removed" not in (tmp_path / "b.log").read_text()

        c = start_runner(tmp_path, "c")
        runners.append(c)
        c_box = running_container(sandbox, c, tmp_path / "c")
        c.send_signal(signal.SIGKILL)
        c.wait()

        # Turned off: C's leftover stays.
        off = quick_run(tmp_path, "off", "--no-sweep")
        assert "removed" not in off.stderr and exists(sandbox, c_box.id)
        # From another pid namespace nothing about C can be proven: `clean` keeps everything.
        elsewhere = subprocess.run(
            [*OWN_PID_NAMESPACE, sys.executable, "-m", "gaia2_runner.cli", "clean"],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert elsewhere.returncode == 0, elsewhere.stderr
        kept = [line for line in elsewhere.stdout.splitlines() if line.startswith("keep")]
        assert any(c_box.name in line and "another pid namespace" in line for line in kept), elsewhere.stdout
        assert exists(sandbox, c_box.id)

        # A later invocation on this host, with A and B still running, removes only C's.
        later = quick_run(tmp_path, "later")
        assert "removed 1 container(s) left by runners that are gone" in later.stderr, later.stderr
        assert c_box.name in later.stderr
        assert not exists(sandbox, c_box.id)
        assert is_running(sandbox, a_box.id) and is_running(sandbox, b_box.id)
        listed = cli("clean", "--dry-run")
        lines = {
            box.name: next(ln for ln in listed.stdout.splitlines() if box.name in ln)
            for box in (a_box, b_box)
        }
        assert lines[a_box.name].startswith("keep") and "another pid namespace" in lines[a_box.name]
        assert lines[b_box.name].startswith("keep") and "runner alive" in lines[b_box.name]
        assert a.poll() is None and b.poll() is None
    finally:
        for runner in runners:
            stop(runner)
