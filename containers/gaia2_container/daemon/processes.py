"""The daemon's share of the container's pids, against an agent that takes them all.

The container has one pid budget (podman's pids limit) for the daemon's threads and the agent's
processes. An agent that forks until none is left must not leave the daemon unable to judge it:
the run would end without a verdict, an infrastructure error that `--retry` runs again. So the
daemon can end every process of the agent's user without starting one, and runs the judge inline
when no thread can be had.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("gaia2.agent")

PROC = Path("/proc")
# Children the daemon started and waits for itself (subprocess.Popen): never reaped here, or their
# Popen would lose the exit status.
OWN_CHILDREN: set[int] = set()


def processes_of(uid: int, proc: Path = PROC) -> dict[int, tuple[str, int]]:
    """pid -> (state letter, parent pid) of the processes (this pid namespace) of real uid `uid`."""
    found = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = dict(
                line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line
            )
            if int(fields["Uid"].split()[0]) == uid:
                found[int(entry.name)] = (fields["State"].split()[0], int(fields["PPid"]))
        except (OSError, KeyError, ValueError):
            continue  # gone meanwhile
    return found


def kill_user_processes(uid: int) -> int:
    """SIGKILL every process of `uid`, then reap those left to this process (the daemon is the
    container's pid 1: orphans become its children, and a zombie still holds its pid). Starts no
    process (there may be no pid left). Returns how many were found.

    As the container's pid 1, one kill(-1) ends every other process at once (in a container the
    daemon runs, they are all the agent's), and the kernel lets no fork complete past it.
    Otherwise each found is killed, again until none is left: only a process not yet reached can
    fork meanwhile, and a SIGKILL, unlike a SIGSTOP, cannot be undone by the others."""
    if uid == 0:
        raise ValueError("refusing to kill every process of root")
    seen: set[int] = set()
    if os.getpid() == 1:
        seen |= set(processes_of(uid))
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        # Zombies of the daemon's own children stay for their Popen to reap.
        left = {
            pid: entry
            for pid, entry in processes_of(uid).items()
            if not (pid in OWN_CHILDREN and entry[0] in "ZX")
        }
        seen |= set(left)
        for pid, (state, ppid) in left.items():
            if state not in "ZX":
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            elif ppid == os.getpid():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        if not left:
            break
        time.sleep(0.02)
    return len(seen)


def start_thread(target: Callable[[], None], name: str, make_room: Callable[[], None] | None = None) -> None:
    """Run `target` in a daemon thread; when no thread can be started (the pids are used up),
    call `make_room` (stop the agent) and run `target` in the calling thread."""
    try:
        threading.Thread(target=target, name=name, daemon=True).start()
        return
    except RuntimeError as exc:
        log.warning("no thread for %s (%s): the agent's processes are stopped, it runs inline", name, exc)
    if make_room is not None:
        make_room()
    target()
