"""A ContainerSpec as Docker create options: the same policy as podman's, in Docker's spelling.

Pure (no daemon): `create_options` is what tests/unit/test_docker_options.py checks item by item.
Where Docker's defaults differ from podman's, the difference is closed here:

- capabilities: Docker grants NET_RAW (raw L2 frames pass a bridge's ICC=false filter), MKNOD and
  AUDIT_WRITE by default, podman 4 does not. Everything is dropped and podman's default set plus
  the daemon's own (container_limits.CAPABILITIES) is added back.
- tmpfs: Docker mounts every tmpfs noexec; podman's are exec (/gaia2/bin holds the agent's tool
  commands, and the agent may run what it writes to /tmp or its $HOME, as on podman). Only the
  `HostConfig.Tmpfs` option string can say exec before API 1.46, and Docker keeps the last of a
  conflicting pair, so "exec" wins over its default "noexec".
- ulimits: Docker passes on dockerd's own rlimits (unlimited open files when started by hand), so
  nofile is set as podman's containers.conf does (scripts/setup-podman.sh). nproc is not: the
  kernel counts it per uid across the host, so every scenario's `agent` user would share one
  budget and one agent's fork bomb would stop another's agent from forking. The container's pids
  limit bounds its processes instead (on podman the runner states a high one:
  container_limits.NPROC_LIMIT).
- copy-in: Docker refuses uploads into a read-only root outside volumes, so each upload dir is an
  anonymous volume (removed with the container: remove(v=True)).
- the host: `host-gateway` names the host in /etc/hosts as podman does (config/endpoints.py).
"""

from __future__ import annotations

from typing import Any

from docker.types import HostConfig, LogConfig, Mount, Ulimit

from gaia2_runner.config.endpoints import HOST_GATEWAY
from gaia2_runner.sandbox.container_limits import CAPABILITIES, NOFILE_LIMIT, limit_options
from gaia2_runner.sandbox.engine import ContainerSpec, Tmpfs
from gaia2_runner.sandbox.streams import CONTAINER_LOG_MAX_BYTES

# podman 4's default capability set (containers.conf default_capabilities), measured in a
# container of the runner's: what the daemon and the agent have on podman, and nothing more.
PODMAN_DEFAULT_CAPABILITIES = (
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
)
# Added only where the engine host has it in its bounding set: podman leaves out what it cannot
# grant by itself, runc under Docker refuses to start the container instead ("unable to apply
# caps"). The daemon then keeps the agent's OOM score without it (daemon/limit_reasons.py).
OPTIONAL_CAPABILITIES = ("SYS_RESOURCE",)
NO_NEW_PRIVILEGES = "no-new-privileges"
# json-file keeps the logs API working whatever the daemon's default driver is, and bounds the disk:
# a few times what the runner reads (json-file's framing roughly doubles each line).
LOG_DRIVER = "json-file"
LOG_MAX_SIZE_BYTES = 4 * CONTAINER_LOG_MAX_BYTES
LOG_MAX_FILES = 2
# Docker 20.10 (Debian's docker.io): the oldest engine the runner supports, the API version it asks
# for first (sandbox/docker_driver.py then uses the engine's own, up to docker-py's).
API_VERSION_FLOOR = "1.41"
CGROUP_NAMESPACE = "private"  # as podman's containers.conf on hybrid hosts: the container sees its own cgroup
TMPFS_FLAGS = "rw,nosuid,nodev"  # what podman's tmpfs mounts show inside the container, besides exec


def capabilities(grant_optional: bool = True) -> list[str]:
    """The capability set of every container: podman's defaults plus the daemon's."""
    wanted = list(PODMAN_DEFAULT_CAPABILITIES) + list(CAPABILITIES)
    return [c for c in dict.fromkeys(wanted) if grant_optional or c not in OPTIONAL_CAPABILITIES]


def tmpfs_option(place: Tmpfs) -> str:
    """One `HostConfig.Tmpfs` value: sized, with its mode, exec or noexec as on podman."""
    return f"{TMPFS_FLAGS},{'exec' if place.exec else 'noexec'},size={place.size_bytes},mode={place.mode}"


def host_config_options(
    spec: ContainerSpec, network_name: str, grant_optional: bool = True
) -> dict[str, Any]:
    """docker-py `HostConfig` keyword arguments for `spec` on the network `network_name`."""
    limits = limit_options(spec.limits)
    # podman-py spellings that Docker writes differently (or that are set here from the module's policy)
    limits.pop("no_new_privileges", None)
    limits.pop("cap_add", None)
    limits.pop("ulimits", None)  # no nproc on Docker (see the module's docstring)
    host = ("127.0.0.1", spec.host_port) if spec.host_port is not None else ("127.0.0.1",)
    return dict(
        limits,
        network_mode=network_name,
        port_bindings={f"{spec.adapter_port}/tcp": host},
        cap_drop=["ALL"],
        cap_add=capabilities(grant_optional),
        security_opt=[NO_NEW_PRIVILEGES],
        tmpfs={t.target: tmpfs_option(t) for t in spec.tmpfs},
        mounts=[
            Mount(target=b.target, source=b.source, type="bind", read_only=b.read_only) for b in spec.binds
        ],
        ulimits=[Ulimit(name="nofile", soft=NOFILE_LIMIT, hard=NOFILE_LIMIT)],
        log_config=LogConfig(
            type=LOG_DRIVER, config={"max-size": str(LOG_MAX_SIZE_BYTES), "max-file": str(LOG_MAX_FILES)}
        ),
        extra_hosts={HOST_GATEWAY: "host-gateway"},
        cgroupns=CGROUP_NAMESPACE,
    )


def create_options(
    spec: ContainerSpec, network_name: str, api_version: str = API_VERSION_FLOOR, grant_optional: bool = True
) -> dict[str, Any]:
    """docker-py `APIClient.create_container` keyword arguments for `spec` (pure: unit-tested)."""
    kwargs: dict[str, Any] = dict(
        image=spec.image,
        name=spec.name,
        detach=True,
        use_config_proxy=False,  # not ~/.docker/config.json's proxies: the env is the runner's alone
        environment=dict(spec.env),
        labels=dict(spec.labels),
        ports=[(spec.adapter_port, "tcp")],
        volumes=list(dict.fromkeys(spec.upload_dirs + spec.late_upload_dirs)),  # anonymous: Config.Volumes
        host_config=HostConfig(
            version=api_version, **host_config_options(spec, network_name, grant_optional)
        ),
        networking_config={"EndpointsConfig": {network_name: {}}},
    )
    if spec.command is not None:
        kwargs["command"] = list(spec.command)
    if spec.entrypoint is not None:
        kwargs["entrypoint"] = list(spec.entrypoint)
    return kwargs
