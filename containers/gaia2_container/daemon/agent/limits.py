"""The container's limits from the inside: the agent as the OOM killer's victim, and why it stopped.

The runner sets a memory limit, a pids limit and sized tmpfs mounts (gaia2_runner/sandbox/
container_limits.py). When memory runs out, the kernel kills the process with the highest OOM
score: the agent must be that one, never the daemon, which still has to judge the run. The agent
is started with oom_score_adj 1000 (its whole process tree inherits it); with CAP_SYS_RESOURCE,
which the runner gives the container and the agent user never has, the daemon's write also pins
the agent's floor there, so the agent cannot lower its score again (without it, a hostile agent
could lower it back to the daemon's, and a heavy agent is still chosen first).

When the agent ends, `stop_reason` says which limit it met, for the run's reason.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger("gaia2.agent")

CGROUP = Path("/sys/fs/cgroup")
OOM_SCORE_ADJ = Path("/proc/self/oom_score_adj")
AGENT_OOM_SCORE_ADJ = 1000  # the most: first in line whatever its size
FULL_BELOW_BYTES = 1 << 20  # a writable place with less room than this is full
# The daemon's own TMPDIR (ARE's Files app keeps its files there), on a tmpfs the agent cannot
# write to: an agent that fills /tmp must not break the daemon's writes.
DAEMON_TMP = Path("/run/gaia2-tmp")
AGENT_TMP = "/tmp"


def use_private_tmp() -> None:
    """Point the daemon's TMPDIR at DAEMON_TMP (root only) when it can be made; else keep /tmp."""
    try:
        DAEMON_TMP.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        log.info("daemon keeps %s as its TMPDIR (%s)", AGENT_TMP, exc)
        return
    os.environ["TMPDIR"] = str(DAEMON_TMP)
    tempfile.tempdir = None  # computed again from TMPDIR on next use


@contextlib.contextmanager
def agent_oom_score() -> Iterator[None]:
    """While the block starts the agent, the daemon's score is the agent's: the child inherits it
    at fork, before it can start anything of its own. Restored after (the daemon's own floor, or
    CAP_SYS_RESOURCE, allows it)."""
    try:
        before = OOM_SCORE_ADJ.read_text().strip()
        OOM_SCORE_ADJ.write_text(str(AGENT_OOM_SCORE_ADJ))
    except OSError as exc:
        log.warning(
            "cannot set the agent's OOM score (%s): the kernel may pick the daemon under memory pressure", exc
        )
        yield
        return
    try:
        yield
    finally:
        try:
            OOM_SCORE_ADJ.write_text(before)
        except OSError as exc:  # the daemon would be the first victim: say so loudly
            log.error("cannot restore the daemon's OOM score to %s: %s", before, exc)


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def oom_kills() -> int:
    """Processes the kernel killed in this container for its memory limit (cgroup v2 or v1)."""
    for path in (CGROUP / "memory.events", CGROUP / "memory" / "memory.oom_control"):
        text = _read(path)
        if text is None:
            continue
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill" and value.strip().isdigit():
                return int(value)
    return 0


def memory_limit() -> int | None:
    """The container's memory limit in bytes, None when there is none."""
    for path in (CGROUP / "memory.max", CGROUP / "memory" / "memory.limit_in_bytes"):
        text = (_read(path) or "").strip()
        if text.isdigit() and int(text) < 1 << 60:  # v1 says "no limit" with a huge number
            return int(text)
    return None


def size_text(size: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if size >= factor:
            return f"{size / factor:.4g} {unit}"
    return f"{size} bytes"


def full_places(places: dict[str, Path]) -> list[str]:
    """`name (size)` of each writable place with (almost) no room left."""
    full = []
    for name, path in places.items():
        try:
            stat = os.statvfs(path)
        except OSError:
            continue
        if stat.f_bavail * stat.f_frsize < FULL_BELOW_BYTES:
            full.append(f"{name} ({size_text(stat.f_blocks * stat.f_frsize)})")
    return full


def stop_reason(oom_kills_before: int, places: dict[str, Path]) -> str | None:
    """Which limit the agent met, in words for the run's reason; None when none."""
    reasons = []
    killed = oom_kills() - oom_kills_before
    if killed > 0:
        limit = memory_limit()
        reasons.append(
            f"the agent exceeded the memory limit ({size_text(limit) if limit else 'unknown'}): "
            f"the kernel killed {killed} of its processes"
        )
    full = full_places(places)
    if full:
        reasons.append(f"the agent filled its writable space: {', '.join(full)} full")
    return "; ".join(reasons) or None
