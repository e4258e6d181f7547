"""The runner's sandbox: one engine connection plus the scenario containers started through it.

Engine-neutral: the live set (removed on close/exit), the once-per-sandbox orphan sweep, deferred
interrupts during cleanup, ssh tunnels for remote hosts. What differs between podman and Docker is
in the driver (sandbox/engine.py, podman_driver.py, docker_driver.py).
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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from gaia2_contract import constants as contract
from gaia2_runner.config.engines import AUTO, DOCKER, PODMAN
from gaia2_runner.config.limits import DEFAULT_LIMITS, ContainerLimits
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.container_limits import tmpfs_places
from gaia2_runner.sandbox.engine import (
    Bind,
    ContainerRecord,
    ContainerSpec,
    EngineDriver,
    EngineInfo,
    Upload,
)
from gaia2_runner.sandbox.engine_select import ENGINE_FLAG, choose_engine, default_url, identify
from gaia2_runner.sandbox.leftovers import Leftover, sweep_orphans, sweep_wanted
from gaia2_runner.sandbox.ownership import RUNNER_FILTER, container_labels
from gaia2_runner.sandbox.ports import free_port
from gaia2_runner.sandbox.service import INSTALL_HINT, PrivateService, start_private_service
from gaia2_runner.sandbox.ssh_tunnel import SshHost
from gaia2_runner.sandbox.warm_pool import WarmPool
from gaia2_runner.text import safe_name


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


# The host port is picked free, then bound by the engine at start: another process (another job,
# another runner thread's container) can take it in between. Such a start is tried again on a new
# port; the engines say it these ways (podman's rootlessport and Docker's proxy; Docker's own
# allocator when one of its containers holds the port).
PORT_TAKEN = ("address already in use", "port is already allocated")
PORT_ATTEMPTS = 3


def _uploads(scenario: bytes | None, input_dir: str, extra_files: Mapping[str, bytes] | None) -> list[Upload]:
    """What goes into a container before it starts: the scenario (owner-only) and `extra_files`
    (absolute path -> content, world-readable: the CA bundle, an image check's probe)."""
    uploads = [(input_dir, contract.SCENARIO_FILE_NAME, scenario, 0o600)] if scenario is not None else []
    for target, data in (extra_files or {}).items():
        directory, _, filename = target.rpartition("/")
        uploads.append((directory or "/", filename, data, 0o644))
    return uploads


def make_driver(engine: str, url: str) -> EngineDriver:
    """The driver of `engine` talking to `url` (unix:// or tcp://)."""
    if engine == DOCKER:
        from gaia2_runner.sandbox.docker_driver import DockerDriver  # docker-py only when asked for

        return DockerDriver(url)
    from gaia2_runner.sandbox.podman_driver import PodmanDriver

    return PodmanDriver(url)


class Sandbox:
    """An engine connection plus the containers started through it (removed on close/exit)."""

    def __init__(
        self,
        driver: EngineDriver,
        url: str,
        service: PrivateService | None = None,
        tunnel: SshHost | None = None,
        reason: str = "",
    ) -> None:
        self.driver = driver
        self.engine = driver.name
        self.url = url  # as the user gave it (ssh://…)
        self.service = service
        self.tunnel = tunnel  # an ssh:// host: the API and adapter ports come through it
        self.api_url = tunnel.url if tunnel else url  # what answers pings
        self.reason = reason  # why this engine (engine_select), shown in the plan
        self._live: dict[str, ContainerHandle] = {}
        self._swept: list[Leftover] | None = None
        self.sweep: bool | None = None  # the run's [run] sweep; None: $GAIA2_SWEEP (config/environment.py)
        self._sweep_lock = threading.Lock()
        self._info: EngineInfo | None = None
        # Set when the runner gave this host up (execution/hosts.py): waits for it end at once.
        self.lost = threading.Event()
        self.pool: WarmPool | None = None  # a job's warm spares (use_warm_pool), else cold starts
        atexit.register(self.close)

    @classmethod
    def connect(cls, url: str | None = None, engine: str | None = None, where: str | None = None) -> Sandbox:
        """Connect to the chosen engine (sandbox/engine_select.py) at `url` or its default place; for
        podman, start a private service when nothing answers and podman is installed. `where`: who
        set `engine` (a config's place, GAIA2_ENGINE), for the plan's engine line."""
        choice = choose_engine(engine, url, where=where or ENGINE_FLAG)
        target = choice.url
        if target and target.startswith("ssh://"):
            return cls._connect_ssh(choice.engine, target, choice.reason)
        if choice.engine == DOCKER:
            return cls._connect_docker(target, choice.reason)
        return cls._connect_podman(target, choice.reason)

    @classmethod
    def _connect_podman(cls, url: str | None, reason: str) -> Sandbox:
        chosen = url or os.environ.get("CONTAINER_HOST")
        target = chosen or default_url(PODMAN)
        driver = make_driver(PODMAN, target)
        if driver.ping():
            return cls(driver, target, reason=reason)
        driver.close()
        if chosen:
            # An address the user chose is never silently replaced by a service of ours.
            raise Gaia2Error(
                f"no podman API answers at {target}: start it (podman system service) or fix CONTAINER_HOST"
            )
        if not shutil.which("podman"):
            raise Gaia2Error(INSTALL_HINT)
        service = start_private_service()
        return cls(make_driver(PODMAN, service.url), service.url, service, reason=reason)

    @classmethod
    def _connect_docker(cls, url: str | None, reason: str) -> Sandbox:
        target = url or os.environ.get("DOCKER_HOST") or default_url(DOCKER)
        driver = make_driver(DOCKER, target)
        if not driver.ping():
            driver.close()
            raise Gaia2Error(
                f"no Docker API answers at {target}: start Docker (scripts/setup-docker.sh, "
                "systemctl start docker, Docker Desktop) or fix DOCKER_HOST"
            )
        return cls(driver, target, reason=reason)

    @classmethod
    def _connect_ssh(cls, engine: str, target: str, reason: str) -> Sandbox:
        """An engine on another machine: its socket and the adapter ports through one ssh master."""
        tunnel = SshHost(target).start()
        who = identify(tunnel.url)  # the socket's file name chose the engine; its answer decides
        if who is not None and who != engine:
            if not reason.startswith(AUTO):
                tunnel.close()
                raise Gaia2Error(
                    f"{target} answers as {who}, not {engine}: drop the engine setting (auto) "
                    f"or give {engine}'s socket"
                )
            engine, reason = who, f"{AUTO}: {target} answers as {who}"
        driver = make_driver(engine, tunnel.url)
        if not driver.ping():
            driver.close()
            tunnel.close()
            raise Gaia2Error(f"no {engine} API answers at {target}: start it there or fix the socket path")
        return cls(driver, target, tunnel=tunnel, reason=reason)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def use_warm_pool(
        self, size: int, pending: Callable[[], int], warn: Callable[[str], None] | None = None
    ) -> None:
        """Runs asking for it (`warm=True`) take warm spares from now on (sandbox/warm_pool.py):
        `size` spares at most, never more than `pending()` (the runs still queued); `warn` hears
        of the pool's first trouble (the runs then start cold)."""
        self.close_warm_pool()
        self.pool = WarmPool(self, size, pending, warn)

    def close_warm_pool(self) -> None:
        """Remove the spares; runs start cold again."""
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()

    def close(self) -> None:
        """Remove containers still running, stop the private service. Safe to call twice."""
        self.close_warm_pool()
        for handle in list(self._live.values()):
            handle.cleanup()
        if self.service is not None:
            self.service.stop()
            self.service = None
        if self.tunnel is not None:
            self.tunnel.close()
        self.driver.close()

    def info(self) -> EngineInfo:
        """The engine's name and version (asked once)."""
        if self._info is None:
            self._info = self.driver.info()
        return self._info

    def ping(self, timeout: float = 3.0) -> bool:
        return self.driver.ping(timeout=timeout)

    def wait_until_reachable(self, limit_s: float, stop: Callable[[], bool] = lambda: False) -> bool:
        """Ping the API with growing pauses (0.5 s … 10 s) until it answers, for at most `limit_s`
        seconds; False when it never did (or `stop()` asked to give up)."""
        deadline = time.monotonic() + limit_s
        pause = 0.5
        while not stop() and not self.lost.is_set():
            if self.ping(timeout=2.0):
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(pause, left))
            pause = min(pause * 2, 10.0)
        return False

    def live_container_ids(self) -> set[str]:
        """Ids of the containers started through this sandbox and not removed yet."""
        return set(self._live)

    def remove_containers(self, ids: set[str], timeout: int = 2) -> None:
        """Stop and remove the given containers of ours (unknown ids are ignored)."""
        for cid in ids:
            handle = self._live.get(cid)
            if handle is not None:
                handle.cleanup(timeout=timeout)

    def forget(self, cid: str) -> None:
        self._live.pop(cid, None)

    def sweep_orphans(self) -> list[Leftover]:
        """Remove containers of runners that are provably gone, once per sandbox (later calls
        return what the first removed). Runs before this sandbox's first container starts,
        unless the sweep is off (`sweep`, else $GAIA2_SWEEP)."""
        with self._sweep_lock:
            if self._swept is None:
                self._swept = sweep_orphans(self.driver) if sweep_wanted(self.sweep) else []
            return self._swept

    def list_labelled(self, label: str = RUNNER_FILTER) -> list[ContainerRecord]:
        return self.driver.list_labelled(label)

    def container_exists(self, cid: str) -> bool:
        return self.driver.state(cid) != {}

    def inspect(self, cid: str) -> dict[str, Any]:
        """The engine's inspect JSON ({} when gone): the same keys on both engines."""
        return self.driver.inspect(cid)

    def image_exists(self, ref: str) -> bool:
        return self.driver.image_id(ref) is not None

    def image_id(self, ref: str) -> str | None:
        """The image's content id (what actually runs, whatever the tag says), or None if absent."""
        return self.driver.image_id(ref)

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
        warm: bool = False,
    ) -> ContainerHandle:
        """Create the container, copy the scenario in before it starts, then start it; with `warm`
        and a warm pool (use_warm_pool), a spare of the same spec is given the scenario instead.

        The adapter port is published on the host's 127.0.0.1 only, the container has a network
        of its own (the driver's policy), and the adapter wants a fresh random token that only
        the environment of this container and the returned handle know. `filesystem_dir` (the
        Files app's data) is mounted read-only at contract.FILESYSTEM_DIR. The labels
        name this process as the owner (sandbox/ownership.py), so a later invocation can tell a
        leftover of a dead runner from a container of a live one. `limits` (memory, CPUs, pids,
        the writable places' sizes) are on for every container (sandbox/container_limits.py).
        """
        self.sweep_orphans()
        name = name or f"gaia2-{safe_name(scenario_id)[:60]}-{secrets.token_hex(3)}"
        uploads = _uploads(scenario_bytes, input_dir, extra_files)
        spec = ContainerSpec(
            image=image,
            name=name,
            env=dict(env),
            labels=container_labels(scenario_id, output_dir),
            adapter_port=contract.ADAPTER_PORT,
            host_port=None,
            limits=limits,
            tmpfs=tmpfs_places(limits),
            binds=(Bind(filesystem_dir, contract.FILESYSTEM_DIR),) if filesystem_dir is not None else (),
            upload_dirs=tuple(dict.fromkeys(u[0] for u in uploads)),
            command=tuple(command) if command is not None else None,
            entrypoint=tuple(entrypoint) if entrypoint is not None else None,
        )
        pool = self.pool
        if warm and pool is not None and scenario_bytes is not None:
            assigned = {k: v for k, v in spec.env.items() if k in contract.ASSIGNED_ENV}
            handle = pool.take(spec, uploads[1:], uploads[0], assigned)
            if handle is not None:
                return handle
        return self.start_container(spec, uploads)

    def start_container(self, spec: ContainerSpec, uploads: list[Upload]) -> ContainerHandle:
        """Create, copy `uploads` in, start; on a new port when the picked one was taken meanwhile."""
        for _ in range(PORT_ATTEMPTS - 1):
            try:
                return self._start_container(spec, uploads)
            except Gaia2Error as exc:
                if not any(words in str(exc) for words in PORT_TAKEN):
                    raise
        return self._start_container(spec, uploads)  # the last attempt's error is the run's

    def _start_container(self, spec: ContainerSpec, uploads: list[Upload]) -> ContainerHandle:
        """One attempt: a free host port and a fresh token, create, copy the uploads in, start."""
        # On an ssh:// host the local free port means nothing: the remote engine picks one.
        port = free_port()
        token = secrets.token_urlsafe(32)
        spec = replace(
            spec,
            env={**spec.env, contract.ENV_ADAPTER_TOKEN: token},
            host_port=None if self.tunnel else port,
        )
        cid = self.driver.create(spec)
        handle = ContainerHandle(cid=cid, name=spec.name, host_port=port, sandbox=self, adapter_token=token)
        self._live[cid] = handle
        try:
            for directory, filename, data, mode in uploads:
                handle.put_file(directory, filename, data, mode=mode)
            self.driver.start(cid)
            if self.tunnel is not None:  # the adapter listens on the remote host's loopback
                handle.remote_port = self.driver.published_port(cid, contract.ADAPTER_PORT)
                handle.host_port = self.tunnel.forward(handle.remote_port)
        except BaseException:
            with deferred_interrupts():
                handle.cleanup()
            raise
        return handle
