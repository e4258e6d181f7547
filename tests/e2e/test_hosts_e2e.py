"""Two podman hosts, one killed mid-run: the oracle on the 9 demo scenarios with `[run] hosts` =
the test session's podman service and a second podman service with its own storage, started here.
The oracle image is removed from the second host first, so the runner must build it there. Once
runs are in flight on the second host its service is killed (SIGKILL): every scenario still gets
a verdict, and the runs that were on the dead host are recorded as infrastructure errors naming
it (`rescheduled_from`) and rerun on the first host. `clean --host` sweeps the second host.
An ssh:// host (an sshd of the test's own in front of the same engine) and a plain tcp:// one run on
podman and Docker."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from dataset_support import DEMO_DIR as DEMO
from dataset_support import oracle_config
from gaia2_runner.sandbox.engine_select import DEFAULT_URLS
from gaia2_runner.sandbox.images import ORACLE_IMAGE, RUNTIME_BASE_IMAGE, RUNTIME_DEPS_IMAGE
from gaia2_runner.sandbox.ports import free_port
from gaia2_runner.sandbox.service import ping
from socket_proxy import SocketProxy

DEFAULT_URL = DEFAULT_URLS["podman"]

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "gaia2_runner.cli"]
# The ssh test's scenarios (one run on the plain socket, two over ssh: slots interleave); the tcp test runs one.
HOST_SCENARIOS = ("demo_calendar_add_event", "demo_messaging_send", "demo_email_reply")
# The second host's storage persists between sessions.
SECOND_ROOT = Path(os.environ.get("GAIA2_TEST_SECOND_PODMAN_ROOT", "/var/lib/containers-gaia2-second-host"))


def podman(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["podman", "--root", str(SECOND_ROOT / "root"), "--runroot", str(SECOND_ROOT / "run"), *args],
        env={k: v for k, v in os.environ.items() if k != "CONTAINER_HOST"},
        **kwargs,
    )


@pytest.fixture
def second_host(tmp_path: Path):
    """A second podman API service with its own storage and socket; yields (url, Popen)."""
    sock = tmp_path / "second.sock"
    (SECOND_ROOT / "root").mkdir(parents=True, exist_ok=True)
    base = os.environ.get("GAIA2_BASE_IMAGE", "")
    if base.startswith("localhost/") and podman("image", "exists", base).returncode != 0:
        # No registry here: give the second host the local base image the first one builds from.
        saved = subprocess.run(
            ["podman", "--url", os.environ.get("CONTAINER_HOST", DEFAULT_URL), "save", base],
            capture_output=True,
            check=True,
        ).stdout
        podman("load", "-q", input=saved, check=True, capture_output=True)
    # The runtime images (ARE's pip layer: minutes to build) come from the first host, as an operator
    # would copy them; the oracle image on top is removed, so the runner must still build on this host.
    main = ["podman", "--url", os.environ.get("CONTAINER_HOST", DEFAULT_URL)]
    for image in (RUNTIME_DEPS_IMAGE, RUNTIME_BASE_IMAGE):
        want = subprocess.run(
            main + ["image", "inspect", "--format", "{{.Id}}", image], capture_output=True, text=True
        ).stdout.strip()
        have = podman(
            "image", "inspect", "--format", "{{.Id}}", image, capture_output=True, text=True
        ).stdout.strip()
        if want and want != have:
            saved = subprocess.run(main + ["save", image], capture_output=True, check=True).stdout
            podman("load", "-q", input=saved, check=True, capture_output=True)
    podman("rmi", "-f", ORACLE_IMAGE, capture_output=True)  # the runner must build it there
    service = subprocess.Popen(
        [
            "podman",
            "--root",
            str(SECOND_ROOT / "root"),
            "--runroot",
            str(SECOND_ROOT / "run"),
            "system",
            "service",
            "--time=0",
            f"unix://{sock}",
        ],
        env={k: v for k, v in os.environ.items() if k != "CONTAINER_HOST"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"unix://{sock}"
    deadline = time.monotonic() + 30
    while not ping(url) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ping(url), "the second podman service did not start"
    try:
        yield url, service
    finally:
        if service.poll() is None:
            service.kill()
        service.wait(timeout=30)


def running_on(sock_url: str) -> int:
    """How many gaia2 scenario containers run on the host behind `sock_url` (0 when it is gone)."""
    proc = subprocess.run(
        [
            "curl",
            "-sf",
            "--max-time",
            "3",
            "--unix-socket",
            sock_url.removeprefix("unix://"),
            "http://d/v4.0.0/libpod/containers/json?filters=%7B%22label%22%3A%5B%22gaia2-runner%3D1%22%5D%7D",
        ],
        capture_output=True,
        text=True,
    )
    try:
        return len(json.loads(proc.stdout or "[]"))
    except ValueError:
        return 0


def test_a_host_killed_mid_run_has_its_runs_rerun_elsewhere(images, second_host, tmp_path: Path):
    url2, service2 = second_host
    url1 = os.environ.get("CONTAINER_HOST", DEFAULT_URL)
    out = tmp_path / "out"
    config = tmp_path / "hosts.toml"
    oracle_config(
        config, DEMO, out, run=f'concurrency = 2\nengine_wait = 30\nhosts = ["{url1}", "{url2}=2"]\n'
    )
    run = subprocess.Popen(
        [*CLI, "run-config", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
    )
    deadline = time.monotonic() + 600
    while running_on(url2) == 0:  # after the oracle image is built there, runs start on it
        assert run.poll() is None and time.monotonic() < deadline, "no run ever started on the second host"
        time.sleep(0.5)
    time.sleep(2)
    os.kill(service2.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    output, _ = run.communicate(timeout=900)
    assert run.returncode == 0, output

    said = "".join(output.split())  # what the runner printed, however the console wrapped it
    assert f"{ORACLE_IMAGE}" in said and f"on{url2}" in said  # built there first
    assert f"enginehost{url2}stoppedanswering" in said
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 9 and all(r["success"] is True for r in records)  # every scenario has a verdict
    moved = [r for r in records if r.get("rescheduled_from")]
    assert moved, "no run was rescheduled"
    for record in moved:
        assert record["host"] == url1
        assert [lost["host"] for lost in record["rescheduled_from"]] == [url2]
        assert "stopped answering" in record["rescheduled_from"][0]["error"]
        # examples/scenarios is a directory of JSON files: one split named after it.
        result = json.loads((out / "scenarios" / record["scenario_id"] / "result.json").read_text())
        assert result["rescheduled_from"] == record["rescheduled_from"]
    assert {r["host"] for r in records} <= {url1, url2}
    log = (out / "runner.log").read_text()
    assert "rescheduled" in log and "stopped answering" in log and f"on {url2}" in log
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["hosts"] == [url1, url2]
    print(
        f"second host killed; run finished {time.monotonic() - killed_at:.1f}s later; "
        f"{len(moved)} run(s) rescheduled"
    )


@pytest.fixture
def sshd(tmp_path: Path):
    """An sshd of its own on 127.0.0.1 (Debian's openssh-server), root by key only; yields the
    query part that points ssh at its key and keeps root's known_hosts untouched."""
    sshd_bin = shutil.which("sshd") or "/usr/sbin/sshd"
    if not Path(sshd_bin).exists():
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", "openssh-server"],
            check=True,
            capture_output=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
    keys = tmp_path / "ssh"
    keys.mkdir(mode=0o700)
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True)
    shutil.copy(keys / "client.pub", keys / "authorized_keys")
    port = free_port()
    config = keys / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {keys / 'host'}\n"
        f"AuthorizedKeysFile {keys / 'authorized_keys'}\nPermitRootLogin prohibit-password\n"
        f"PasswordAuthentication no\nStrictModes no\nUsePAM no\nPidFile {keys / 'sshd.pid'}\n"
        "AllowTcpForwarding yes\nAllowStreamLocalForwarding yes\n"
    )
    Path("/run/sshd").mkdir(exist_ok=True)
    daemon = subprocess.Popen(
        [sshd_bin, "-D", "-e", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield (
            port,
            (
                f"?identity={keys / 'client'}&StrictHostKeyChecking=no"
                "&UserKnownHostsFile=/dev/null&LogLevel=ERROR"
            ),
        )
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


@pytest.mark.both_engines
def test_an_ssh_host_runs_scenarios_through_one_ssh_connection(
    engine, images, sandbox, sshd, demo_dataset, tmp_path: Path
):
    """ssh://root@127.0.0.1:PORT<socket>, podman's or Docker's: the API socket and every adapter port
    come through the ssh master; runs spread over the plain socket and the ssh route to the same engine."""
    port, query = sshd
    url1 = sandbox.url  # the engine's own socket (podman: CONTAINER_HOST; Docker: /var/run/docker.sock)
    ssh_url = f"ssh://root@127.0.0.1:{port}{url1.removeprefix('unix://')}{query}"
    out = tmp_path / "out"
    config = tmp_path / "ssh.toml"
    data = demo_dataset(HOST_SCENARIOS)
    oracle_config(config, data, out, run=f'engine = "{engine}"\nhosts = ["{url1}=1", "{ssh_url}=2"]\n')
    proc = subprocess.run(
        [*CLI, "run-config", "--config", str(config)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=900,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == len(HOST_SCENARIOS) and all(r["success"] is True for r in records), records
    over_ssh = [r for r in records if r["host"] == ssh_url]  # the slots interleave: runs 2 and 3 go over ssh
    assert over_ssh and all(r["status"] == "completed" for r in over_ssh)
    # Both routes answered throughout: the host watch gave neither up (its ping is the engine's own).
    assert "stopped answering" not in proc.stdout + proc.stderr and not any(
        r.get("rescheduled_from") for r in records
    )
    assert not list(Path(tempfile.gettempdir()).glob("gaia2-ssh-*/control"))  # the master is gone


@pytest.mark.both_engines
def test_a_plain_tcp_host_reaches_the_engine(engine, images, sandbox, demo_dataset, tmp_path: Path):
    """--host tcp://127.0.0.1:PORT (no TLS; a relay to the engine's socket stands in for a daemon
    listening on tcp): a scenario runs through it and run_config.json records that engine."""
    with SocketProxy(tmp_path / "unused", sandbox.api_url, tcp=True) as relay:
        out = tmp_path / "out"
        proc = subprocess.run(
            [
                *CLI,
                "run-dataset",
                "--dataset-root",
                str(demo_dataset(HOST_SCENARIOS[:1])),
                "--image",
                ORACLE_IMAGE,
                "--output-dir",
                str(out),
                "--host",
                relay.url,
                "--engine",
                engine,
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=600,
            env={**os.environ, "COLUMNS": "200"},
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert relay.connections > 0  # the runner came this way
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["success"] for r in records] == [True], records
    assert json.loads((out / "run_config.json").read_text())["engine"]["engine"] == engine


def test_hosts_of_two_engines_run_on_the_first_hosts_engine_only(
    images, sandboxes, demo_dataset, tmp_path: Path
):
    """--host podman --host Docker: one run is one engine (run_config.json and the fingerprint name
    it), so the Docker host is left out with a warning and the run goes on on podman."""
    podman_url, docker_url = sandboxes("podman").api_url, sandboxes("docker").api_url
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            *CLI,
            "run-dataset",
            "--dataset-root",
            str(demo_dataset(HOST_SCENARIOS[:1])),
            "--image",
            ORACLE_IMAGE,
            "--output-dir",
            str(out),
            "--host",
            podman_url,
            "--host",
            docker_url,
            "--engine",
            "auto",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = " ".join((proc.stdout + proc.stderr).split())
    assert f"host left out: {docker_url} is docker, this run's engine is podman" in said, said
    assert json.loads((out / "run_config.json").read_text())["engine"]["engine"] == "podman"


def test_clean_host_removes_a_dead_runners_container_on_another_host(images, second_host, tmp_path: Path):
    """`clean --host URL` sweeps another podman host: a container this machine's runner left there
    (the runner is gone) is removed; plain `clean` only sees this machine's podman."""
    from gaia2_runner.sandbox.ownership import LABEL_PID, LABEL_START_TIME, container_labels

    url, _ = second_host
    gone = subprocess.Popen(["true"])
    gone.wait()
    labels = {**container_labels("clean-host-test", None), LABEL_PID: str(gone.pid), LABEL_START_TIME: "1"}
    name = f"gaia2-clean-host-{os.getpid()}"
    podman(
        "create",
        "--name",
        name,
        *[f"--label={k}={v}" for k, v in labels.items()],
        RUNTIME_BASE_IMAGE,
        check=True,
        capture_output=True,
    )
    env = {**os.environ, "COLUMNS": "200"}
    here = subprocess.run([*CLI, "clean", "--dry-run"], capture_output=True, text=True, env=env, timeout=120)
    assert here.returncode == 0 and name not in here.stdout, here.stdout + here.stderr
    # A host that does not answer is reported and skipped; the others are still cleaned.
    missing = f"unix://{tmp_path / 'nobody.sock'}"
    both = subprocess.run(
        [*CLI, "clean", "--dry-run", "--host", missing, "--host", url],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert both.returncode == 1 and f"would remove   {name}" in both.stdout, both.stdout + both.stderr
    errors = [ln for ln in both.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and missing in errors[0] and "Traceback" not in both.stderr, both.stderr
    swept = subprocess.run(
        [*CLI, "clean", "--host", url], capture_output=True, text=True, env=env, timeout=120
    )
    assert swept.returncode == 0, swept.stdout + swept.stderr
    line = next(ln for ln in swept.stdout.splitlines() if name in ln)
    assert line.startswith("remove") and "runner gone" in line and f"pid {gone.pid}" in line
    assert podman("container", "exists", name).returncode == 1
    bad = subprocess.run(
        [*CLI, "clean", "--host", "nope"], capture_output=True, text=True, env=env, timeout=60
    )
    assert bad.returncode == 2 and bad.stderr.startswith("error: --host: 'nope' is not an engine API URL")
    assert "Traceback" not in bad.stderr
