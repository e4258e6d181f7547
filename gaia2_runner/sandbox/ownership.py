"""Who owns a scenario container: labels naming the runner process that started it, and whether
that process still lives.

A runner killed with -9 cannot remove its containers. The next invocation on the same host finds
them by these labels and removes those whose owner is gone, never those of a runner that still
runs. A pid alone would not do (pids are reused), so the owner is host + boot id + pid + the
process's start time (field 22 of /proc/<pid>/stat, clock ticks since boot).
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

# Every label the runner puts on a container; podman filters on them (`label=gaia2-runner=1`).
LABEL_RUNNER = "gaia2-runner"  # "1": started by gaia2-runner
LABEL_SCENARIO_ID = "gaia2.scenario_id"
LABEL_HOST = "gaia2.owner.host"
LABEL_BOOT_ID = "gaia2.owner.boot_id"
LABEL_PID = "gaia2.owner.pid"
LABEL_START_TIME = "gaia2.owner.start_time"
LABEL_INVOCATION = "gaia2.owner.invocation"
LABEL_OUTPUT_DIR = "gaia2.output_dir"
RUNNER_FILTER = f"{LABEL_RUNNER}=1"

# What a container's owner is, seen from this process.
ALIVE = "alive"  # the owning runner still runs: hands off
DEAD = "dead"  # the owning runner is gone: a leftover
OTHER_HOST = "other-host"  # started from another machine: cannot tell
UNKNOWN = "unknown"  # no owner labels (a runner older than these labels)

_invocations: dict[int, str] = {}  # pid -> invocation id, so a forked child gets its own


@dataclass(frozen=True)
class Owner:
    """The runner process that started a container."""

    host: str
    boot_id: str
    pid: int
    start_time: str  # "" where /proc is unavailable
    invocation: str

    def labels(self) -> dict[str, str]:
        return {LABEL_HOST: self.host, LABEL_BOOT_ID: self.boot_id, LABEL_PID: str(self.pid),
                LABEL_START_TIME: self.start_time, LABEL_INVOCATION: self.invocation}

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> "Owner | None":
        try:
            pid = int(labels[LABEL_PID])
            return cls(host=labels[LABEL_HOST], boot_id=labels.get(LABEL_BOOT_ID, ""), pid=pid,
                       start_time=labels.get(LABEL_START_TIME, ""), invocation=labels.get(LABEL_INVOCATION, ""))
        except (KeyError, ValueError):
            return None


def container_labels(scenario_id: str, output_dir: str | None) -> dict[str, str]:
    """The labels of a container this process starts now."""
    labels = {LABEL_RUNNER: "1", LABEL_SCENARIO_ID: scenario_id, **current_owner().labels()}
    if output_dir:
        labels[LABEL_OUTPUT_DIR] = output_dir
    return labels


def current_owner() -> Owner:
    """This process as an owner; the invocation id is drawn once per process."""
    pid = os.getpid()
    invocation = _invocations.setdefault(pid, secrets.token_hex(6))
    stat = _proc_stat(pid)
    return Owner(host=socket.gethostname(), boot_id=_boot_id(), pid=pid,
                 start_time=stat[1] if stat else "", invocation=invocation)


def owner_state(owner: Owner | None) -> str:
    """ALIVE, DEAD, OTHER_HOST or UNKNOWN. Only DEAD is ever removed without being asked."""
    if owner is None:
        return UNKNOWN
    if owner.host != socket.gethostname():
        return OTHER_HOST
    boot_id = _boot_id()
    if owner.boot_id and boot_id and owner.boot_id != boot_id:
        return DEAD  # the machine rebooted since: every process of that boot is gone
    stat = _proc_stat(owner.pid)
    if stat is None:
        return ALIVE if _pid_exists(owner.pid) else DEAD  # no /proc entry we can read: trust the pid
    state, start_time = stat
    if state in ("Z", "X"):  # killed, not reaped yet by its parent
        return DEAD
    if owner.start_time and start_time != owner.start_time:
        return DEAD  # the pid was reused by another process
    return ALIVE


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) from /proc/<pid>/stat; None when there is no such process or no /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the command name may hold spaces and parens
    return fields[0], fields[19]  # fields 3 and 22 of proc(5)


def _pid_exists(pid: int) -> bool:
    """Asked of the kernel, not /proc: /proc may hide other users' processes (hidepid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""
