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

from typing import Any

from gaia2_contract import constants as contract
from gaia2_runner.config.limits import (
    DAEMON_DIR_BYTES,
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
    )
