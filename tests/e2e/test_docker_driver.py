"""DockerDriver against the real dockerd: the isolation, limits and copy-in/out Docker must match podman on.

Two containers of the plain base image (not the runner's images): A serves TCP on the adapter port,
B probes everything from inside in one run and writes what it saw to its output volume. Marked
integration; run under `flock /tmp/gaia2-e2e.lock`. It fails (never skips) when dockerd does not
answer: scripts/setup-docker.sh starts it.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import socket
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gaia2_runner.config.endpoints import HOST_GATEWAY
from gaia2_runner.config.limits import TINY_DIR_BYTES, ContainerLimits
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.container_limits import NOFILE_LIMIT, tmpfs_places
from gaia2_runner.sandbox.docker_driver import DockerDriver
from gaia2_runner.sandbox.docker_network import ICC_OPTION, NETWORK_NAME, ensure_isolated_network
from gaia2_runner.sandbox.docker_options import PODMAN_DEFAULT_CAPABILITIES
from gaia2_runner.sandbox.engine import ContainerSpec, EngineUnavailable
from gaia2_runner.sandbox.ownership import container_labels
from polling import until

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

DOCKER_URL = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
IMAGE = "localhost/gaia2-base:bookworm"  # python3 and sh; loaded into Docker by scripts/setup-docker.sh
PORT = 8090
LIMITS = ContainerLimits.of(memory="1g", cpus=1, pids=200, disk="32m")
OUTSIDE = ("pypi.org", 443)  # the relay's way out to a provider: any public TLS host
TEST_LABEL = "gaia2.test.docker_driver"
EXEC_PLACES = ("/gaia2/bin", "/tmp", "/gaia2/agent", "/run")  # exec on podman, so on Docker too
CAP_NAMES = (
    "CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE "
    "NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO "
    "SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE"
).split()

SERVE_A = (
    f"import socket\ns = socket.create_server(('0.0.0.0', {PORT}))\n"
    "while True:\n    c, _ = s.accept(); c.sendall(b'A'); c.close()\n"
)

# Runs inside B: every observation into one JSON document (stdout and /gaia2/output/probe.json).
PROBE = r"""
import errno, json, os, resource, socket, subprocess, threading
env, seen = os.environ, {}

def connect(key, host, port, timeout=3.0):
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
        seen[key] = "open"
    except socket.timeout:
        seen[key] = "timeout"
    except OSError as exc:
        seen[key] = errno.errorcode.get(exc.errno, str(exc))

checks = [("a_by_ip", env["A_IP"], env["PORT"]), ("a_by_name", env["A_NAME"], env["PORT"]),
          ("host_loopback_via_gateway", env["GATEWAY"], env["LOOPBACK_PORT"]),
          ("host_loopback_via_bridge_gateway", env["BRIDGE_GATEWAY"], env["LOOPBACK_PORT"]),
          ("host_loopback_direct", "127.0.0.1", env["LOOPBACK_PORT"]),
          ("a_published_via_gateway", env["GATEWAY"], env["A_HOST_PORT"]),
          ("host_open_via_gateway", env["GATEWAY"], env["OPEN_PORT"]),
          ("host_open_via_host_ip", env["HOST_IP"], env["OPEN_PORT"]),
          ("outside", env["OUTSIDE_HOST"], env["OUTSIDE_PORT"])]
threads = [threading.Thread(target=connect, args=c) for c in checks]
[t.start() for t in threads]
try:
    seen["a_name_resolves"] = socket.gethostbyname(env["A_NAME"])
except OSError as exc:
    seen["a_name_resolves"] = str(exc)
for place in env["EXEC_PLACES"].split(","):
    path = place + "/run-me.sh"
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho ran\n")
    os.chmod(path, 0o755)
    seen["exec " + place] = subprocess.run([path], capture_output=True, text=True).stdout.strip()
written = 0
try:
    with open("/gaia2/clock/fill", "wb") as f:
        while written <= int(env["FILL_LIMIT"]) + (1 << 20):
            f.write(b"x" * (1 << 20)); f.flush(); written += 1 << 20
    seen["tmpfs_full"] = "no error after %d bytes" % written
except OSError as exc:
    seen["tmpfs_full"] = errno.errorcode.get(exc.errno, str(exc))
os.remove("/gaia2/clock/fill")
try:
    open("/etc/gaia2-probe", "w").close()
    seen["root_write"] = "written"
except OSError as exc:
    seen["root_write"] = errno.errorcode.get(exc.errno, str(exc))
with open("/gaia2/input/hello.txt") as f:
    seen["uploaded"] = f.read()
def first(*paths):
    for p in paths:
        if os.path.exists(p):
            return open(p).read().strip()
    return None
seen["memory_limit"] = first("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max")
seen["pids_max"] = first("/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/pids.max")
status = dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
seen["cap_eff"], seen["no_new_privs"] = status["CapEff"].strip(), status["NoNewPrivs"].strip()
for key, family, proto in (("raw_packet", socket.AF_PACKET, 0), ("raw_inet", socket.AF_INET, socket.IPPROTO_ICMP)):
    try:
        socket.socket(family, socket.SOCK_RAW, proto).close()
        seen[key] = "opened"
    except OSError as exc:
        seen[key] = errno.errorcode.get(exc.errno, str(exc))
seen["nofile"], seen["nproc"] = resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_NPROC)
[t.join() for t in threads]
text = json.dumps(seen, sort_keys=True)
open("/gaia2/output/probe.json", "w").write(text)
print("PROBE " + text, flush=True)
"""


class _Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"host")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def driver() -> Iterator[DockerDriver]:
    drv = DockerDriver(DOCKER_URL)
    if not drv.ping():
        pytest.fail(f"no Docker API answers at {DOCKER_URL}: start dockerd (scripts/setup-docker.sh)")
    if drv.image_id(IMAGE) is None:
        pytest.fail(f"{IMAGE} is not in Docker: load it (podman save {IMAGE} | docker load)")
    yield drv
    drv.close()


@pytest.fixture(scope="module")
def host_servers() -> Iterator[dict[str, int]]:
    """An HTTP server on the host's 127.0.0.1 (containers must not reach it) and one on 0.0.0.0."""
    servers = {
        name: ThreadingHTTPServer((addr, 0), _Answer)
        for name, addr in (("loopback", "127.0.0.1"), ("open", "0.0.0.0"))
    }
    for server in servers.values():
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {name: server.server_address[1] for name, server in servers.items()}
    for server in servers.values():
        server.shutdown()
        server.server_close()


def _spec(name: str, entrypoint: tuple[str, ...], env: dict[str, str] | None = None) -> ContainerSpec:
    return ContainerSpec(
        image=IMAGE,
        name=name,
        env=env or {},
        labels={**container_labels("docker-driver-test", None), TEST_LABEL: name},
        adapter_port=PORT,
        host_port=None,
        limits=LIMITS,
        tmpfs=tmpfs_places(LIMITS),
        upload_dirs=("/gaia2/input", "/gaia2/output"),
        entrypoint=entrypoint,
    )


def _tar(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), 0o644
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _host_ip() -> str:
    """The host's address on its default route (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("198.51.100.1", 9))  # TEST-NET-2: only the route is looked up
        return s.getsockname()[0]


def _caps(hex_mask: str) -> set[str]:
    mask = int(hex_mask, 16)
    return {name for bit, name in enumerate(CAP_NAMES) if mask >> bit & 1} | (
        {"SETFCAP"} if mask >> 31 & 1 else set()
    )


def _read(driver: DockerDriver, cid: str, path: str) -> dict[str, bytes]:
    with driver.open_archive(cid, path) as chunks:
        data = b"".join(chunks)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def test_two_containers_isolation_limits_copy_in_and_out(
    driver: DockerDriver, host_servers: dict[str, int]
) -> None:
    with socket.create_connection(OUTSIDE, timeout=10):
        pass  # the host reaches the outside, so a container must too (else this test cannot say)
    tag = secrets.token_hex(3)
    created: list[str] = []
    try:
        a = driver.create(_spec(f"gaia2-dtest-a-{tag}", ("python3", "-c", SERVE_A)))
        created.append(a)
        driver.start(a)
        a_port = driver.published_port(a, PORT)
        assert until(lambda: _answers(a_port), wait_s=30), (
            "A's published adapter port never answered the host"
        )
        a_net = driver.inspect(a)["NetworkSettings"]["Networks"][NETWORK_NAME]
        network = driver.api.inspect_network(NETWORK_NAME)
        assert network["Options"][ICC_OPTION] == "false" and network["Labels"]["gaia2-runner"] == "1"
        env = dict(
            A_IP=a_net["IPAddress"],
            A_NAME=f"gaia2-dtest-a-{tag}",
            PORT=str(PORT),
            GATEWAY=HOST_GATEWAY,
            BRIDGE_GATEWAY=a_net["Gateway"],
            LOOPBACK_PORT=str(host_servers["loopback"]),
            OPEN_PORT=str(host_servers["open"]),
            A_HOST_PORT=str(a_port),
            HOST_IP=_host_ip(),
            OUTSIDE_HOST=OUTSIDE[0],
            OUTSIDE_PORT=str(OUTSIDE[1]),
            EXEC_PLACES=",".join(EXEC_PLACES),
            FILL_LIMIT=str(TINY_DIR_BYTES),
        )
        b = driver.create(_spec(f"gaia2-dtest-b-{tag}", ("python3", "-c", PROBE), env))
        created.append(b)
        assert driver.put_archive(b, "/gaia2/input", _tar("hello.txt", b"uploaded before start"))
        with pytest.raises(Gaia2Error, match="read-only"):  # the read-only root refuses copies too
            driver.put_archive(b, "/etc", _tar("x", b"x"))
        driver.start(b)
        assert until(lambda: (driver.state(b) or {}).get("Status") == "exited", wait_s=90), driver.state(b)
        assert driver.state(b)["ExitCode"] == 0, _logs(driver, b)
        seen = json.loads(_read(driver, b, "/gaia2/output")["output/probe.json"])
        assert "PROBE " + json.dumps(seen, sort_keys=True) in _logs(driver, b)
        # network: not each other (by IP or by name), not the host's loopback, the host and the outside yes
        for key in (
            "a_by_ip",
            "a_by_name",
            "host_loopback_via_gateway",
            "host_loopback_via_bridge_gateway",
            "host_loopback_direct",
            "a_published_via_gateway",
        ):
            assert seen[key] != "open", (key, seen)
        for key in ("host_open_via_gateway", "host_open_via_host_ip", "outside"):
            assert seen[key] == "open", (key, seen)
        # files: the upload is there, the root is read-only, every tmpfs runs programs and has a size
        assert seen["uploaded"] == "uploaded before start"
        assert seen["root_write"] == "EROFS"
        assert all(seen[f"exec {place}"] == "ran" for place in EXEC_PLACES), seen
        assert seen["tmpfs_full"] == "ENOSPC"
        # limits
        assert int(seen["memory_limit"]) == LIMITS.memory_bytes and seen["pids_max"] == str(LIMITS.pids)
        # nproc is not capped per uid (that budget would be shared by every scenario's agent)
        assert seen["nofile"] == [NOFILE_LIMIT] * 2 and seen["nproc"] != [1024, 1024], seen
        assert seen["no_new_privs"] == "1"
        caps = _caps(seen["cap_eff"])
        assert (
            set(PODMAN_DEFAULT_CAPABILITIES) | {"NET_ADMIN"}
            <= caps
            <= set(PODMAN_DEFAULT_CAPABILITIES) | {"NET_ADMIN", "SYS_RESOURCE"}
        ), caps
        assert "NET_RAW" not in caps and seen["raw_packet"] == "EPERM" and seen["raw_inet"] == "EPERM"
        # listing, then stop and remove twice each without an error
        listed = {r.id: r for r in driver.list_labelled(f"{TEST_LABEL}")}
        assert (
            {a, b} <= set(listed) and listed[b].name == f"gaia2-dtest-b-{tag}" and listed[b].state == "exited"
        )
        assert listed[a].state == "running" and listed[a].created > 0
        for cid in (a, b):
            driver.stop(cid, timeout=1)
            driver.stop(cid, timeout=1)
            assert driver.remove(cid) and driver.remove(cid)
            assert driver.state(cid) == {} and not driver.container_exists(cid)
        driver.stop(a, timeout=1)  # gone: still no error
    finally:
        for cid in created:
            driver.remove(cid)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            return s.recv(1) == b"A"
    except OSError:
        return False


def _logs(driver: DockerDriver, cid: str) -> str:
    with driver.open_logs(cid) as chunks:
        return b"".join(chunks).decode(errors="replace")


def test_network_with_icc_on_is_refused_and_creation_is_idempotent(driver: DockerDriver) -> None:
    name = f"gaia2-dtest-net-{secrets.token_hex(3)}"
    driver.api.create_network(name, driver="bridge")  # Docker's default: containers talk to each other
    try:
        with pytest.raises(Gaia2Error, match=f"docker network rm {name}"):
            ensure_isolated_network(driver.api, name)
    finally:
        driver.api.remove_network(name)
    try:
        assert ensure_isolated_network(driver.api, name) == name
        assert ensure_isolated_network(driver.api, name) == name  # found, not created twice
        assert driver.api.inspect_network(name)["Options"][ICC_OPTION] == "false"
    finally:
        driver.api.remove_network(name)


def test_build_returns_the_image_id(driver: DockerDriver) -> None:
    tag = f"localhost/gaia2-dtest-build:{secrets.token_hex(3)}"
    dockerfile = f"FROM {IMAGE}\nLABEL gaia2.test=docker-build\n".encode()
    params = {
        "dockerfile": "Containerfile",
        "t": tag,
        "buildargs": "{}",
        "networkmode": "host",
        "nocache": False,
        "rm": True,
        "forcerm": True,
        "layers": True,
        "labels": json.dumps({"gaia2.source": "test"}),
    }
    lines: list[str] = []
    try:
        result = driver.build(io.BytesIO(_tar("Containerfile", dockerfile)), params, lines.append)
        assert result.error is None and result.image_id, (result, lines)
        assert driver.image_id(tag) == result.image_id and not result.image_id.startswith("sha256:")
        assert driver.image_labels(tag) == {"gaia2.test": "docker-build", "gaia2.source": "test"} | (
            driver.image_labels(IMAGE) or {}
        )
        assert any("LABEL" in line for line in lines)
        broken = driver.build(
            io.BytesIO(_tar("Containerfile", b"FROM localhost/gaia2-no-such-image:x\n")),
            {**params, "t": tag + "-broken"},
            None,
        )
        assert broken.image_id is None and broken.error
    finally:
        driver.api.remove_image(tag, force=True)


def test_unreachable_engine(tmp_path: Any) -> None:
    gone = DockerDriver(f"unix://{tmp_path}/docker.sock")
    assert gone.ping() is False and gone.state("abc") is None and gone.info().version == ""
    gone.stop("abc", timeout=1)  # never raises
    assert gone.remove("abc") is False
    with pytest.raises(EngineUnavailable):
        gone.list_labelled("gaia2-runner=1")
    with pytest.raises(EngineUnavailable):
        gone.create(_spec("gaia2-dtest-none", ("true",)))
