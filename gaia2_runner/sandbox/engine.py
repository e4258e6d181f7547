"""The seam between the runner and a container engine (podman or Docker).

Everything the runner asks of an engine goes through one `EngineDriver`: create a container from a
`ContainerSpec`, copy files in before it starts, start it, read its state, logs and output, stop and
remove it, list the runner's containers, and inspect or build images. The engine-neutral logic
(the live set, the orphan sweep, deferred interrupts, ssh tunnels) lives in sandbox/sandbox.py,
one container's files, state and capped streams (sandbox/streams.py) in sandbox/container_handle.py,
the same for every engine; a driver only translates. Drivers:
sandbox/podman_driver.py (podman-py) and sandbox/docker_driver.py (the `docker` package).

Why a spec rather than keyword arguments: the two APIs spell the same policy differently (network
isolation, exec tmpfs, no-new-privileges, copy-in on a read-only root), and one pure function per
engine turning a spec into its create options can be unit-tested without a daemon.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Protocol

from gaia2_runner.config.limits import ContainerLimits
from gaia2_runner.errors import Gaia2Error


class EngineUnavailable(Gaia2Error):
    """The engine's API did not answer at all (service stopped, socket gone): worth waiting for."""


@dataclass(frozen=True)
class Tmpfs:
    """A sized tmpfs; `exec` because /gaia2/bin holds the agent's tool commands."""

    target: str
    size_bytes: int
    mode: str  # octal text, "1777" for the sticky world-writable places
    exec: bool = True


@dataclass(frozen=True)
class Bind:
    source: str
    target: str
    read_only: bool = True


Upload = tuple[str, str, bytes, int]  # a file copied into a container: directory, name, content, mode


@dataclass(frozen=True)
class ContainerSpec:
    """One scenario container, engine-neutral. Built once by Sandbox.run_scenario_container."""

    image: str
    name: str
    env: Mapping[str, str]
    labels: Mapping[str, str]
    adapter_port: int  # the daemon's port inside the container
    host_port: int | None  # published on the host's 127.0.0.1; None: the engine picks (ssh:// hosts)
    limits: ContainerLimits
    tmpfs: tuple[Tmpfs, ...]
    binds: tuple[Bind, ...] = ()
    # Directories that receive files before the container starts (the scenario, the CA bundle).
    # podman writes into the container's layer even with a read-only root; Docker refuses, so its
    # driver makes each of them an anonymous volume (removed with the container).
    upload_dirs: tuple[str, ...] = ()
    # Directories that receive files after start (a warm spare's scenario, sandbox/warm_pool.py):
    # podman mounts each as a small root-only tmpfs (its layer takes files before start only);
    # Docker makes them anonymous volumes as the others.
    late_upload_dirs: tuple[str, ...] = ()
    command: tuple[str, ...] | None = None
    entrypoint: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ContainerRecord:
    """One container as the engine lists it (orphan sweep, `clean`)."""

    id: str
    name: str  # without Docker's leading "/"
    state: str  # running, exited, created, …
    labels: Mapping[str, str]
    created: float  # seconds since the epoch (podman lists a string, Docker an int)


@dataclass(frozen=True)
class EngineInfo:
    """What the plan, run_config.json and `ls` show about the engine a run used."""

    engine: str  # PODMAN | DOCKER
    version: str
    api_version: str

    def as_dict(self) -> dict[str, str]:
        return {"engine": self.engine, "version": self.version, "api_version": self.api_version}


@dataclass
class BuildResult:
    image_id: str | None
    error: str | None
    tail: list[str] = field(default_factory=list)


class EngineDriver(Protocol):
    """One engine's API, translated. Every method raises EngineUnavailable when nothing answers
    (unless it says otherwise) and Gaia2Error with the engine's message for a refusal."""

    name: str  # PODMAN | DOCKER
    url: str  # the API address actually talked to (a tunnel's local socket for ssh:// hosts)

    def ping(self, timeout: float = 3.0) -> bool: ...
    def info(self) -> EngineInfo: ...
    def close(self) -> None: ...

    # containers
    def create(self, spec: ContainerSpec) -> str: ...  # the new container's id
    def put_archive(self, cid: str, directory: str, tar: bytes) -> bool: ...
    def start(self, cid: str) -> None: ...
    def state(self, cid: str) -> dict[str, Any] | None: ...  # State block; {} gone; None: no answer
    def inspect(self, cid: str) -> dict[str, Any]: ...  # the inspect JSON; {} when gone
    def published_port(self, cid: str, port: int) -> int: ...
    def open_logs(self, cid: str) -> AbstractContextManager[Iterator[bytes]]: ...  # raw (maybe framed) bytes
    def open_archive(self, cid: str, path: str) -> AbstractContextManager[Iterator[bytes]]: ...
    def stop(self, cid: str, timeout: int) -> None: ...  # never raises
    def remove(self, cid: str) -> bool: ...  # with its volumes; True when gone, False: no answer
    def list_labelled(self, label: str) -> list[ContainerRecord]: ...

    # images
    def image_id(self, ref: str) -> str | None: ...  # bare hex (no "sha256:"), None when absent
    def image_labels(self, ref: str) -> dict[str, str] | None: ...
    def build(
        self, body: BinaryIO, params: Mapping[str, Any], log: Callable[[str], None] | None
    ) -> BuildResult: ...
