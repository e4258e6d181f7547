"""The resource limits of a scenario container: defaults, parsing and checks, in one place.

Every scenario container gets them unless the run overrides them (`--memory`, `--cpus`, `--pids`,
`--disk`; `[run] memory = "4g"` …; wall time is `--timeout`); their values are in
config/defaults.py. The defaults fit one Gaia2 scenario (ARE and the daemon, plus an agent harness
such as a Node CLI) with headroom: measured peaks are in docs/guide/security.md, "Limits".
sandbox/container_limits.py turns them into container options.

The agent's writable places are tmpfs mounts (the root filesystem is read-only), and a tmpfs's
pages count against the container's memory: `memory` must leave room for the files `disk` allows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gaia2_runner.config.defaults import DEFAULT_CPUS, DEFAULT_DISK, DEFAULT_MEMORY, DEFAULT_PIDS

MiB = 1024**2
GiB = 1024**3

# Fixed sizes of the other writable places (tmpfs; they also count against `memory`).
DAEMON_DIR_BYTES = 256 * MiB  # /run: the daemon's TMPDIR (ARE's Files app writes there)
SMALL_DIR_BYTES = 64 * MiB  # /var/tmp and /dev/shm
LATE_UPLOAD_BYTES = 64 * MiB  # a warm spare's scenario directory (podman: a tmpfs); a larger file starts cold
TINY_DIR_BYTES = 16 * MiB  # /gaia2/bin (app commands) and /gaia2/clock (the agent's clock offset)
PROCESS_ROOM_BYTES = 1 * GiB  # what `memory` must leave to the processes once every tmpfs is full

MIN_MEMORY_BYTES = 1 * GiB
MAX_CPUS = 1024.0
MIN_PIDS = 64  # the daemon alone has ~30 threads
MAX_PIDS = 1_000_000
MIN_DISK_BYTES = 16 * MiB

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": MiB, "g": GiB, "t": 1024 * GiB}


def parse_size(text: str) -> int:
    """`4g`, `512m`, `1.5GiB`, `2048MB` or a number of bytes -> bytes (binary units); ValueError."""
    match = _SIZE.match(str(text))
    if not match:
        raise ValueError(f"{text!r} is not a size: write e.g. 4g, 512m or 1.5GiB")
    value = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if not math.isfinite(value) or value < 1:
        raise ValueError(f"{text!r} is not a positive size")
    return int(value)


def format_size(size: int) -> str:
    """Bytes as people write them: 4 GiB, 512 MiB, 1.5 GiB."""
    for unit, factor in (("TiB", 1024 * GiB), ("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if size >= factor:
            return f"{size / factor:.4g} {unit}"
    return f"{size} B"


@dataclass(frozen=True)
class ContainerLimits:
    """What one scenario container may use (bytes, cores, pids)."""

    memory_bytes: int
    cpus: float
    pids: int
    disk_bytes: int

    @classmethod
    def of(
        cls,
        memory: str = DEFAULT_MEMORY,
        cpus: float = DEFAULT_CPUS,
        pids: int = DEFAULT_PIDS,
        disk: str = DEFAULT_DISK,
    ) -> ContainerLimits:
        """From the settings' values (sizes as text); ValueError naming the bad one."""
        return cls(
            memory_bytes=parse_size(memory), cpus=float(cpus), pids=int(pids), disk_bytes=parse_size(disk)
        )

    def files_bytes(self) -> int:
        """The most every tmpfs together can hold: the agent's $HOME and /tmp, and the fixed ones."""
        return 2 * self.disk_bytes + DAEMON_DIR_BYTES + 2 * (SMALL_DIR_BYTES + TINY_DIR_BYTES)

    def problem(self) -> tuple[str, str] | None:
        """(setting name, what is wrong and the fix), or None when the limits can work."""
        if self.memory_bytes < MIN_MEMORY_BYTES:
            return (
                "memory",
                f"memory must be at least {format_size(MIN_MEMORY_BYTES)} (ARE and the daemon need it)",
            )
        if not (math.isfinite(self.cpus) and 0.01 <= self.cpus <= MAX_CPUS):
            return "cpus", f"cpus must be a number of cores from 0.01 to {MAX_CPUS:g}, got {self.cpus:g}"
        if not MIN_PIDS <= self.pids <= MAX_PIDS:
            return "pids", f"pids must be {MIN_PIDS} to {MAX_PIDS}, got {self.pids}"
        if self.disk_bytes < MIN_DISK_BYTES:
            return "disk", f"disk must be at least {format_size(MIN_DISK_BYTES)}"
        need = self.files_bytes() + PROCESS_ROOM_BYTES
        if self.memory_bytes < need:
            return "memory", (
                f"memory ({format_size(self.memory_bytes)}) must hold the container's files too "
                f"(tmpfs: $HOME and /tmp up to disk each, {format_size(self.files_bytes())} in all) "
                f"plus {format_size(PROCESS_ROOM_BYTES)} for its processes: raise memory to "
                f"{format_size(need)} or lower disk"
            )
        return None


DEFAULT_LIMITS = ContainerLimits.of()
