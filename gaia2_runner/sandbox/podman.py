"""Podman access for the runner: connect, run one scenario container, collect, clean up.

Everything goes through the podman REST API (podman-py), so the runner works the same against a
local socket, a remote CONTAINER_HOST or a private service it starts itself.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import signal
import threading
import time

from typing import Any, Callable, Iterator, Mapping

from gaia2_contract import constants as contract
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.service import INSTALL_HINT, PrivateService, ping, start_private_service
from gaia2_runner.config.limits import DEFAULT_LIMITS, ContainerLimits
from gaia2_runner.sandbox.container_limits import limit_options, tmpfs_mounts
from gaia2_runner.sandbox.api_errors import PodmanUnavailable, api_message, unreachable
from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.leftovers import Leftover, sweep_orphans, sweep_wanted
from gaia2_runner.sandbox.ownership import container_labels
from gaia2_runner.sandbox.ports import free_port
from gaia2_runner.sandbox.ssh_tunnel import SshHost
from gaia2_runner.text import safe_name
from podman import PodmanClient
from podman.errors import APIError, NotFound

DEFAULT_URL = "unix:///run/podman/podman.sock"
# Every scenario container gets its own user-mode network stack: no bridge shared with other
# containers, the host's loopback (where adapter ports are published) out of reach, outbound
# traffic (model providers, host.containers.internal) leaving as if from the host.
NETWORK_MODE = "slirp4netns"
NETWORK_OPTIONS = {"slirp4netns": ["allow_host_loopback=false"]}


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
            raise Gaia2Error(f"cannot create a container from {image}: {api_message(exc)}") from None
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
                raise Gaia2Error(f"cannot start a container from {image}: {api_message(exc)}") from None
            raise
        return handle


def published_port(container: Any) -> int:
    """The host port podman chose for the adapter port (ports published without a host port)."""
    container.reload()
    bindings = ((container.attrs.get("NetworkSettings") or {}).get("Ports") or {}).get(
        f"{contract.ADAPTER_PORT}/tcp") or []
    for binding in bindings:
        if str(binding.get("HostPort") or "").isdigit():
            return int(binding["HostPort"])
    raise Gaia2Error(f"podman published no host port for the adapter port {contract.ADAPTER_PORT}")
