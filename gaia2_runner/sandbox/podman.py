"""Podman access for the runner: connect, run one scenario container, collect, clean up.

Everything goes through the podman REST API (podman-py), so the runner works the same against a
local socket, a remote CONTAINER_HOST or a private service it starts itself.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import secrets
import shutil
import signal
import tarfile
import threading
import time
from dataclasses import dataclass, field

from typing import Any, Callable, Iterator, Mapping

from gaia2_runner import contract
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.service import INSTALL_HINT, PrivateService, ping, start_private_service
from gaia2_runner.config.limits import DEFAULT_LIMITS, ContainerLimits
from gaia2_runner.sandbox.container_limits import limit_options, tmpfs_mounts
from gaia2_runner.sandbox.container_logs import demux_logs
from gaia2_runner.output.streams import (
    CONTAINER_LOG_MAX_BYTES,
    SMALL_ARCHIVE_MAX_BYTES,
    STREAM_CHUNK_BYTES,
    read_capped,
    truncation_marker,
)
from gaia2_runner.sandbox.leftovers import Leftover, sweep_orphans, sweep_wanted
from gaia2_runner.sandbox.ownership import container_labels
from gaia2_runner.sandbox.ports import free_port
from gaia2_runner.sandbox.ssh_tunnel import SshHost
from gaia2_runner.text import safe_name
import requests
from podman import PodmanClient
from podman.errors import APIError, NotFound

DEFAULT_URL = "unix:///run/podman/podman.sock"
STOPPED_GRACE_S = 10.0  # ContainerHandle.wait_exited: podman's cleanup after the process ends
# Every scenario container gets its own user-mode network stack: no bridge shared with other
# containers, the host's loopback (where adapter ports are published) out of reach, outbound
# traffic (model providers, host.containers.internal) leaving as if from the host.
NETWORK_MODE = "slirp4netns"
NETWORK_OPTIONS = {"slirp4netns": ["allow_host_loopback=false"]}
# The daemon (root in the container) closes the agent user's egress with an nftables rule on the
# container's own network namespace, then drops this capability (containers/.../daemon/egress.py).
EGRESS_CAPABILITIES = ["NET_ADMIN"]
# No process in the container gains privileges by exec (setuid binaries such as su or mount stay
# the agent's own): the container's added capabilities are the root daemon's alone. (podman-py's
# spelling; Docker's is security_opt=["no-new-privileges"].)
NO_NEW_PRIVILEGES = True


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold SIGINT/SIGTERM while cleaning up, so a second Ctrl-C cannot leave a container behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda signum, _frame: received.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            raise KeyboardInterrupt


class PodmanBackend:
    """A podman connection plus the containers started through it (removed on close/exit)."""

    def __init__(self, client: PodmanClient, url: str, service: PrivateService | None = None,
                 tunnel: SshHost | None = None) -> None:
        self.client = client
        self.url = url  # as the user gave it (ssh://…)
        self.service = service
        self.tunnel = tunnel  # an ssh:// host: the API and adapter ports come through it
        self.api_url = tunnel.url if tunnel else url  # what answers pings
        self._live: dict[str, ContainerHandle] = {}
        self._swept: list[Leftover] | None = None
        self.sweep: bool | None = None  # None: $GAIA2_SWEEP decides (leftovers.sweep_wanted)
        self._sweep_lock = threading.Lock()
        # Set when the runner gave this host up (engine/hosts.py): waits for it end at once.
        self.lost = threading.Event()
        atexit.register(self.close)

    @classmethod
    def connect(cls, url: str | None = None) -> "PodmanBackend":
        """Connect to `url`, else $CONTAINER_HOST, else the system socket; start a private
        service when nothing answers and podman is installed."""
        target = url or os.environ.get("CONTAINER_HOST") or DEFAULT_URL
        if target.startswith("ssh://"):
            return cls._connect_ssh(target)
        if ping(target):
            # No client-side timeout: archive reads and builds may legitimately take minutes.
            return cls(PodmanClient(base_url=target), target)
        if url or os.environ.get("CONTAINER_HOST"):
            # An address the user chose is never silently replaced by a service of ours.
            raise Gaia2Error(
                f"no podman API answers at {target}: start it (podman system service) "
                "or fix CONTAINER_HOST"
            )
        if not shutil.which("podman"):
            raise Gaia2Error(INSTALL_HINT)
        service = start_private_service()
        return cls(PodmanClient(base_url=service.url), service.url, service)

    @classmethod
    def _connect_ssh(cls, target: str) -> "PodmanBackend":
        """podman on another machine: its socket and the adapter ports through one ssh master."""
        tunnel = SshHost(target).start()
        if not ping(tunnel.url):
            tunnel.close()
            raise Gaia2Error(f"no podman API answers at {target}: start it there (podman system service) "
                             "or fix the socket path")
        return cls(PodmanClient(base_url=tunnel.url), target, tunnel=tunnel)

    def __enter__(self) -> "PodmanBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove containers still running, stop the private service. Safe to call twice."""
        for handle in list(self._live.values()):
            handle.cleanup()
        if self.service is not None:
            self.service.stop()
            self.service = None
        if self.tunnel is not None:
            self.tunnel.close()
        self.client.close()

    def wait_until_reachable(self, limit_s: float, stop: Callable[[], bool] = lambda: False) -> bool:
        """Ping the API with growing pauses (0.5 s … 10 s) until it answers, for at most `limit_s`
        seconds; False when it never did (or `stop()` asked to give up)."""
        deadline = time.monotonic() + limit_s
        pause = 0.5
        while not stop() and not self.lost.is_set():
            if ping(self.api_url, timeout=2.0):
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(pause, left))
            pause = min(pause * 2, 10.0)
        return False

    def live_container_ids(self) -> set[str]:
        """Ids of the containers started through this backend and not removed yet."""
        return set(self._live)

    def remove_containers(self, ids: set[str], timeout: int = 2) -> None:
        """Stop and remove the given containers of ours (unknown ids are ignored)."""
        for cid in ids:
            handle = self._live.get(cid)
            if handle is not None:
                handle.cleanup(timeout=timeout)

    def sweep_orphans(self) -> list[Leftover]:
        """Remove containers of runners that are provably gone, once per backend (later calls
        return what the first removed). Runs before this backend's first container starts,
        unless the sweep is off (`sweep`, else $GAIA2_SWEEP)."""
        with self._sweep_lock:
            if self._swept is None:
                self._swept = sweep_orphans(self.client) if sweep_wanted(self.sweep) else []
            return self._swept

    def image_exists(self, ref: str) -> bool:
        try:
            return bool(self.client.images.exists(ref))
        except NotFound:
            return False

    def image_id(self, ref: str) -> str | None:
        """The image's content id (what actually runs, whatever the tag says), or None if absent."""
        try:
            return str(self.client.images.get(ref).id)
        except (NotFound, APIError):
            return None

    def run_scenario_container(
        self,
        image: str,
        scenario_bytes: bytes | None,
        env: Mapping[str, str],
        scenario_id: str,
        name: str | None = None,
        command: list[str] | None = None,
        entrypoint: list[str] | None = None,
        input_dir: str = contract.INPUT_DIR,
        extra_files: Mapping[str, bytes] | None = None,
        output_dir: str | None = None,
        filesystem_dir: str | None = None,
        limits: ContainerLimits = DEFAULT_LIMITS,
    ) -> "ContainerHandle":
        """Create the container, copy the scenario in before it starts, then start it.

        The adapter port is published on the host's 127.0.0.1 only, the container has a network
        namespace of its own (NETWORK_MODE), and the adapter wants a fresh random token that only
        the environment of this container and the returned handle know. `filesystem_dir` (the
        Files app's data) is mounted read-only at contract.FILESYSTEM_DIR. The labels
        name this process as the owner (sandbox/ownership.py), so a later invocation can tell a
        leftover of a dead runner from a container of a live one. `limits` (memory, CPUs, pids,
        the writable places' sizes) are on for every container (sandbox/container_limits.py).
        """
        self.sweep_orphans()
        port = free_port()
        token = secrets.token_urlsafe(32)
        name = name or f"gaia2-{safe_name(scenario_id)[:60]}-{secrets.token_hex(3)}"
        kwargs: dict[str, Any] = dict(
            detach=True,
            name=name,
            # On an ssh:// host the local free port means nothing: the remote podman picks one.
            ports={f"{contract.ADAPTER_PORT}/tcp": {"ip": "127.0.0.1"} if self.tunnel else ("127.0.0.1", port)},
            network_mode=NETWORK_MODE,
            network_options=NETWORK_OPTIONS,
            environment={**env, contract.ENV_ADAPTER_TOKEN: token},
            labels=container_labels(scenario_id, output_dir),
            **limit_options(limits),
        )
        mounts = tmpfs_mounts(limits)
        kwargs["cap_add"] = [*kwargs.get("cap_add", []), *EGRESS_CAPABILITIES]
        kwargs["no_new_privileges"] = NO_NEW_PRIVILEGES
        if command is not None:
            kwargs["command"] = command
        if filesystem_dir is not None:
            mounts.append({"type": "bind", "source": filesystem_dir, "target": contract.FILESYSTEM_DIR,
                           "read_only": True})
        kwargs["mounts"] = mounts
        if entrypoint is not None:  # benchmarks/bench_runner.py: a bare server in the same setup
            kwargs["entrypoint"] = entrypoint
        try:
            container = self.client.containers.create(image, **kwargs)
        except APIError as exc:
            if unreachable(exc):
                raise PodmanUnavailable(f"podman API unreachable at {self.url}: cannot create a container") from None
            raise Gaia2Error(f"cannot create a container from {image}: {_api_message(exc)}") from None
        handle = ContainerHandle(container=container, name=name, host_port=port, backend=self,
                                 adapter_token=token)
        self._live[container.id] = handle
        try:
            if scenario_bytes is not None:
                handle.put_file(input_dir, contract.SCENARIO_FILE_NAME, scenario_bytes, mode=0o600)
            for target, data in (extra_files or {}).items():
                directory, _, filename = target.rpartition("/")
                handle.put_file(directory or "/", filename, data, mode=0o644)
            container.start()
            if self.tunnel is not None:  # the adapter listens on the remote host's loopback
                handle.remote_port = published_port(container)
                handle.host_port = self.tunnel.forward(handle.remote_port)
        except BaseException as exc:
            with deferred_interrupts():
                handle.cleanup()
            if isinstance(exc, APIError) and unreachable(exc):
                raise PodmanUnavailable(f"podman API unreachable at {self.url}: cannot start a container") from None
            if isinstance(exc, APIError):
                raise Gaia2Error(f"cannot start a container from {image}: {_api_message(exc)}") from None
            raise
        return handle


@dataclass
class ContainerHandle:
    """One running scenario container."""

    container: Any
    name: str
    host_port: int
    backend: PodmanBackend
    adapter_token: str = field(default="", repr=False)  # a secret: never logged nor saved
    removed: bool = field(default=False)
    remote_port: int | None = None  # ssh:// hosts: the port on the remote loopback host_port forwards to

    @property
    def id(self) -> str:
        return self.container.id

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.host_port}"

    def put_file(self, directory: str, filename: str, data: bytes, mode: int = 0o600) -> None:
        """Copy one root-owned file into the (not necessarily started) container.

        The archive stops at tar's end-of-archive blocks, without the zeros tarfile pads it with up
        to its 10 KiB record size: podman 4's copier stops reading at the end marker, and padding
        still being written then fails the upload ("broken pipe"; seen with ~3 MB scenarios)."""
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            info = tarfile.TarInfo(filename)
            info.size, info.mode, info.mtime = len(data), mode, int(time.time())
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            tar.addfile(info, io.BytesIO(data))
        if not self.container.put_archive(directory, buf.getvalue()[:tar.offset]):
            raise Gaia2Error(
                f"cannot copy {filename} into {directory} of the container: "
                "does the image follow docs/container-contract.md?"
            )

    def state(self) -> dict[str, Any] | None:
        """podman's State block ({} when the container is gone; None when podman does not answer
        or errs: nobody knows, and a container is not taken for dead because its API is down)."""
        try:
            self.container.reload()
        except NotFound:
            return {}
        except APIError:
            return None
        return self.container.attrs.get("State") or {}

    def is_running(self) -> bool:
        state = self.state()
        if state is None:
            return True  # unknown: the adapter API, which answers on its own, decides
        return bool(state.get("Running")) or state.get("Status") in ("running", "created", "configured", "initialized")

    def wait_exited(self, timeout: float) -> bool:
        """Wait until podman is done with the container ("exited", or gone); False at `timeout`.
        "stopped" (the process ended, podman still cleaning up) is not done: a copy out of the
        container then can find its output directory empty. It counts after STOPPED_GRACE_S."""
        deadline, stopped_at = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            state = self.state()
            if state is not None and (not state or state.get("Status") == "exited"):
                return True
            if state and state.get("Status") == "stopped":
                stopped_at = stopped_at or time.monotonic()
                if time.monotonic() - stopped_at >= STOPPED_GRACE_S:
                    return True
            time.sleep(0.2)
        return False

    def exit_code(self) -> int | None:
        state = self.state()
        if not state or state.get("Running"):
            return None
        code = state.get("ExitCode")
        return code if isinstance(code, int) else None

    def logs(self) -> str:
        """Container stdout+stderr as text (its first CONTAINER_LOG_MAX_BYTES, then a marker line);
        demultiplexed when podman frames it. Streamed: the runner never holds more than the cap."""
        with contextlib.closing(self.backend.client.api.get(
                f"/containers/{self.id}/logs", params={"stdout": True, "stderr": True}, stream=True)) as resp:
            resp.raise_for_status()
            data = read_capped(resp.iter_content(STREAM_CHUNK_BYTES), CONTAINER_LOG_MAX_BYTES)
        text = demux_logs(data.data).decode("utf-8", errors="replace")
        return text + (f"\n{truncation_marker('container log', CONTAINER_LOG_MAX_BYTES)}\n" if data.truncated else "")

    def get_archive(self, path: str) -> bytes:
        """The tar of `path` inside the container, read in one call (small files only: the
        preflight's result, an image check's output; a run's output goes through open_archive)."""
        with self.open_archive(path) as chunks:
            return read_capped(chunks, SMALL_ARCHIVE_MAX_BYTES).data

    @contextlib.contextmanager
    def open_archive(self, path: str) -> Iterator[Iterator[bytes]]:
        """The tar of `path` as a stream of chunks, never joined in memory (podman-py's own
        get_archive reads the whole answer first: 1.5 GB of agent output cost 3 GB of RAM)."""
        resp = self.backend.client.api.get(f"/containers/{self.id}/archive", params={"path": path}, stream=True)
        with contextlib.closing(resp):
            resp.raise_for_status()
            yield resp.iter_content(STREAM_CHUNK_BYTES)

    def stop(self, timeout: int = 5) -> None:
        with contextlib.suppress(NotFound, APIError):
            self.container.stop(timeout=timeout, ignore=True)

    def remove(self) -> None:
        try:
            self.container.remove(force=True, v=True)  # and its output volume
        except NotFound:
            pass
        except APIError as exc:
            if unreachable(exc):
                return  # still ours: close() and the next invocation's sweep try again
        self.removed = True
        self.backend._live.pop(self.id, None)

    def cleanup(self, timeout: int = 5) -> None:
        """Stop then remove; never raises for a container that is already gone."""
        if not self.removed:
            self.stop(timeout)
            self.remove()
        tunnel = self.backend.tunnel
        if tunnel is not None and self.remote_port is not None:
            tunnel.cancel(self.host_port, self.remote_port)
            self.remote_port = None


class PodmanUnavailable(Gaia2Error):
    """The podman API did not answer at all (service stopped, socket gone): worth waiting for."""


def unreachable(exc: BaseException) -> bool:
    """Whether a podman-py error means the API could not be reached (no HTTP answer at all)."""
    if isinstance(exc, requests.exceptions.ConnectionError):
        return True
    cause = exc.__cause__ or exc.__context__
    return isinstance(exc, APIError) and getattr(exc, "response", None) is None and \
        isinstance(cause, (requests.exceptions.ConnectionError, requests.exceptions.Timeout))


def published_port(container: Any) -> int:
    """The host port podman chose for the adapter port (ports published without a host port)."""
    container.reload()
    bindings = ((container.attrs.get("NetworkSettings") or {}).get("Ports") or {}).get(
        f"{contract.ADAPTER_PORT}/tcp") or []
    for binding in bindings:
        if str(binding.get("HostPort") or "").isdigit():
            return int(binding["HostPort"])
    raise Gaia2Error(f"podman published no host port for the adapter port {contract.ADAPTER_PORT}")


def _api_message(exc: APIError) -> str:
    text = " ".join(str(getattr(exc, "explanation", None) or exc).split())
    if "slirp4netns" in text:
        text += " (install slirp4netns: apt-get install slirp4netns, or run scripts/setup-podman.sh)"
    return text
