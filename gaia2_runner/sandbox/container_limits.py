"""ContainerLimits (config/limits.py) as container-create options every engine understands.

Plain Docker-API options only: a memory limit without swap, a CFS quota, a pids limit, a read-only
root filesystem, tmpfs mounts with a size and a mode, the capabilities the root daemon needs, and
no-new-privileges. `--storage-opt size=`
would cap the writable layer itself, but only on overlay over xfs with project quotas (not ext4,
the usual host): tmpfs mounts work everywhere, and their pages count against the memory limit
(config/limits.py checks that `memory` leaves room for them).

The scenario and the CA bundle are copied in before the container starts (ContainerHandle.put_file):
podman writes them into the container's own layer even with a read-only root. Docker refuses
uploads into a read-only root outside volumes, so its driver makes those directories
(ContainerSpec.upload_dirs) anonymous volumes.
"""

from __future__ import annotations

import resource
from typing import Any

from gaia2_contract import constants as contract
from gaia2_runner.config.limits import (
    DAEMON_DIR_BYTES,
    LATE_UPLOAD_BYTES,
    SMALL_DIR_BYTES,
    TINY_DIR_BYTES,
    ContainerLimits,
)
from gaia2_runner.sandbox.engine import Tmpfs

CPU_PERIOD_US = 100_000  # the CFS period; the quota is cpus x this
# Capabilities of the root daemon's: SYS_RESOURCE pins the agent's OOM score (the agent cannot
# lower it, so the kernel's OOM killer takes the agent, never the judge: daemon/limit_reasons.py);
# NET_ADMIN installs the nftables rule that closes the agent user's egress, then the daemon drops it
# from its bounding set (daemon/egress.py).
CAPABILITIES = ["SYS_RESOURCE", "NET_ADMIN"]
# No process in the container gains privileges by exec (setuid binaries such as su or mount stay
# the agent's own): the added capabilities are the daemon's alone. (podman-py's spelling; Docker's
# is security_opt=["no-new-privileges"].)
NO_NEW_PRIVILEGES = True
CLOCK_DIR = "/gaia2/clock"  # containers/gaia2_container/daemon/process_clock.py CLOCK_DIR
DAEMON_TMP_DIR = "/run"  # the daemon's TMPDIR lives below it (daemon/main.py)
# scripts/setup-podman.sh's containers.conf: default_ulimits = ["nofile=1024:1024", …]
NOFILE_LIMIT = 1024
# RLIMIT_NPROC counts a uid's processes across the whole host, and every container's agent is the
# same uid: at 1024 (the containers.conf setup-podman.sh writes) a few agents' fork bombs, each
# within its pids limit, left another scenario's agent unable to start a thread. The pids limit
# bounds each container; this only keeps the uid-wide count from coupling them. pid_max's usual
# default, never above the runner's own hard limit (a rootless podman cannot raise its user's).
NPROC_LIMIT = 32768


def nproc_limit() -> int:
    """NPROC_LIMIT, or the runner's own hard RLIMIT_NPROC where that is lower."""
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    return NPROC_LIMIT if hard == resource.RLIM_INFINITY else min(NPROC_LIMIT, hard)


def ulimits() -> list[dict[str, Any]]:
    """podman-py `ulimits` (an explicit list replaces containers.conf's default_ulimits whole, so
    nofile is restated)."""
    nproc = nproc_limit()
    return [
        {"Name": "nofile", "Soft": NOFILE_LIMIT, "Hard": NOFILE_LIMIT},
        {"Name": "nproc", "Soft": nproc, "Hard": nproc},
    ]


def tmpfs_places(limits: ContainerLimits) -> tuple[Tmpfs, ...]:
    """Every place the daemon or the agent writes to, as a sized tmpfs (the rest is read-only).

    World-writable ones are sticky (1777); the agent's $HOME is made the agent's by the daemon."""
    places = [
        (contract.AGENT_DIR, limits.disk_bytes, "0755"),
        ("/tmp", limits.disk_bytes, "1777"),
        ("/var/tmp", SMALL_DIR_BYTES, "1777"),
        (DAEMON_TMP_DIR, DAEMON_DIR_BYTES, "0755"),
        (contract.BIN_DIR, TINY_DIR_BYTES, "0755"),
        (CLOCK_DIR, TINY_DIR_BYTES, "0755"),
    ]
    return tuple(Tmpfs(target, size, mode) for target, size, mode in places)


LATE_UPLOAD_MODE = "0700"  # root only, as the image's /gaia2/input: the scenario holds the answers


def late_upload_places(directories: tuple[str, ...]) -> tuple[Tmpfs, ...]:
    """podman: the directories that receive files after start, as tmpfs (only what is written
    counts against the container's memory)."""
    return tuple(Tmpfs(d, LATE_UPLOAD_BYTES, LATE_UPLOAD_MODE, exec=False) for d in directories)


def tmpfs_mounts(places: tuple[Tmpfs, ...]) -> list[dict[str, Any]]:
    """podman-py `mounts` entries for the tmpfs places (podman mounts them exec)."""
    return [
        {"type": "tmpfs", "source": "tmpfs", "target": t.target, "size": str(t.size_bytes), "mode": t.mode}
        for t in places
    ]


def limit_options(limits: ContainerLimits) -> dict[str, Any]:
    """podman-py `containers.create` keyword arguments for `limits`."""
    return dict(
        mem_limit=limits.memory_bytes,
        memswap_limit=limits.memory_bytes,  # equal: no swap on top of the memory limit
        cpu_period=CPU_PERIOD_US,
        cpu_quota=max(1000, int(limits.cpus * CPU_PERIOD_US)),
        pids_limit=limits.pids,
        shm_size=SMALL_DIR_BYTES,
        read_only=True,
        cap_add=list(CAPABILITIES),
        no_new_privileges=NO_NEW_PRIVILEGES,
        ulimits=ulimits(),
    )
