"""Who owns a scenario container: labels naming the runner process that started it, and whether
that process is provably gone.

A runner killed with -9 cannot remove its containers. The next invocation finds them by these
labels and removes those whose owner is gone for sure, never those of a runner that may still
run: runners on other machines, in other containers or pid namespaces, or of an earlier boot (or
another machine of the same name) share engine hosts too. The owner is host + boot id + the pid
and time namespaces + pid + the process's start time (field 22 of /proc/<pid>/stat, clock ticks
since boot, as the reader's time namespace sees it); a pid alone would not do (pids are reused).
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# Every label the runner puts on a container; both engines filter on them (`label=gaia2-runner=1`).
LABEL_RUNNER = "gaia2-runner"  # "1": started by gaia2-runner
LABEL_SCENARIO_ID = "gaia2.scenario_id"
LABEL_HOST = "gaia2.owner.host"
LABEL_BOOT_ID = "gaia2.owner.boot_id"
LABEL_NAMESPACES = "gaia2.owner.namespaces"  # "pid:[…] time:[…]": pids and start times mean this
LABEL_PID = "gaia2.owner.pid"
LABEL_START_TIME = "gaia2.owner.start_time"
LABEL_INVOCATION = "gaia2.owner.invocation"
LABEL_OUTPUT_DIR = "gaia2.output_dir"
RUNNER_FILTER = f"{LABEL_RUNNER}=1"
NAMESPACE_KINDS = ("pid", "time")  # /proc/self/ns/<kind>; time is absent before Linux 5.6

# What a container's owner is, seen from this process. Only DEAD is removed without being asked.
ALIVE = "alive"  # the owning runner still runs: hands off
DEAD = "dead"  # the owning runner is gone for sure: a leftover
OTHER_HOST = "other-host"  # started from another machine: cannot tell
OTHER_BOOT = "other-boot"  # an earlier boot of this machine, or another machine of the same name
OTHER_NAMESPACE = "other-namespace"  # a runner in another pid (or time) namespace: its pid means nothing here
UNKNOWN = "unknown"  # owner labels missing (an older runner) or /proc unreadable here

_invocations: dict[int, str] = {}  # pid -> invocation id, so a forked child gets its own


@dataclass(frozen=True)
class Owner:
    """The runner process that started a container."""

    host: str
    boot_id: str
    pid: int
    start_time: str  # "" where /proc is unavailable
    invocation: str
    namespaces: str = ""  # "" where /proc is unavailable, or a runner older than the label

    def labels(self) -> dict[str, str]:
        return {
            LABEL_HOST: self.host,
            LABEL_BOOT_ID: self.boot_id,
            LABEL_NAMESPACES: self.namespaces,
            LABEL_PID: str(self.pid),
            LABEL_START_TIME: self.start_time,
            LABEL_INVOCATION: self.invocation,
        }

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> Owner | None:
        try:
            pid = int(labels[LABEL_PID])
            if pid <= 0:  # never a process (kill(0 or -1) would even mean a group)
                return None
            return cls(
                host=labels[LABEL_HOST],
                boot_id=labels.get(LABEL_BOOT_ID, ""),
                pid=pid,
                start_time=labels.get(LABEL_START_TIME, ""),
                invocation=labels.get(LABEL_INVOCATION, ""),
                namespaces=labels.get(LABEL_NAMESPACES, ""),
            )
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
    stat = _proc_stat(pid) if _proc_is_ours() else None
    return Owner(
        host=socket.gethostname(),
        boot_id=_boot_id(),
        pid=pid,
        start_time=stat[1] if stat else "",
        invocation=invocation,
        namespaces=_namespaces() if stat else "",
    )


def owner_state(owner: Owner | None) -> str:
    """DEAD only when the owner is provably gone: same host, boot and namespaces as this process,
    and its pid absent or now another process's (another start time). Anything uncertain is not
    DEAD: another host, boot or namespace, a missing label, a /proc that cannot be read."""
    if owner is None:
        return UNKNOWN
    if owner.host != socket.gethostname():
        return OTHER_HOST
    boot_id = _boot_id()
    if (
        not owner.boot_id
        or not owner.start_time
        or not owner.namespaces
        or not boot_id
        or not _proc_is_ours()
    ):
        return UNKNOWN
    if owner.boot_id != boot_id:
        return OTHER_BOOT
    if owner.namespaces != _namespaces():
        return OTHER_NAMESPACE
    stat = _proc_stat(owner.pid)
    if stat is None:
        # No /proc entry: gone, unless the kernel still knows the pid (/proc may hide other users'
        # processes: hidepid); then nobody can tell, and a live runner is never taken for dead.
        return ALIVE if _pid_exists(owner.pid) else DEAD
    state, start_time = stat
    if start_time != owner.start_time:
        return DEAD  # the pid was reused by another process
    if state in ("Z", "X"):  # the owner itself, killed, not reaped yet by its parent
        return DEAD
    return ALIVE


def _proc_is_ours() -> bool:
    """/proc is mounted and shows this process's pid namespace (a /proc of another namespace
    would name other processes under the same pids)."""
    try:
        return os.readlink("/proc/self") == str(os.getpid())
    except OSError:
        return False


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) from /proc/<pid>/stat; None when there is no such process or no /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces and parens
    return fields[0], fields[19]  # fields 3 and 22 of proc(5)


def _namespaces() -> str:
    """This process's pid and time namespaces ("pid:[4026531836] time:[4026531834]"); "" when
    the pid namespace cannot be read."""
    found = []
    for kind in NAMESPACE_KINDS:
        try:
            found.append(os.readlink(f"/proc/self/ns/{kind}"))
        except OSError:
            if kind == "pid":
                return ""
    return " ".join(found)


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
