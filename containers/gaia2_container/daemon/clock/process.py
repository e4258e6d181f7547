"""The agent's process clock shows the scenario's simulated time (containers/simclock.c).

A CLI agent that runs `date` or `datetime.now()` should see the scenario's day (2024-10-15 for a
scenario starting then), not the machine's. libsimclock is preloaded into every program of the
image (/etc/ld.so.preload, and LD_PRELOAD for the agent) but shifts the clock only in processes with
GAIA2_SIMCLOCK_FILE, which the daemon gives the agent (a harness that strips LD_PRELOAD from its
shell, as OpenClaw's exec tool does, passes that one on). The daemon keeps that root-owned,
world-readable file current with the offset between simulated and real time; the library
re-reads it on every calendar-clock call, so the agent follows `wait_for_notification` jumps and `--time-
speed` at once. Monotonic clocks, sleeps and timeouts stay
the kernel's. (Debian bookworm's libfaketime 0.9.10 was the first choice; left with a real monotonic
clock it makes Python 3.11+'s time.sleep fail with EINVAL, and faking monotonic time too hangs
threading waits.) The agent can read the file but not write
it, nor the directory it is in; the daemon's and the oracle's own clocks are never faked (the
daemon only writes the file, ARE's time comes from its own TimeManager).

Only the agent process is faked: the model relay (daemon/relay/proxy.py) talks HTTPS to providers with
the real clock, and the agent reaches it over plain HTTP on loopback. A faked process that talks
HTTPS itself checks certificates against the simulated date (a certificate issued after it is "not
yet valid"), hence GAIA2_AGENT_REAL_CLOCK=1 to opt out.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("gaia2.clock")

SIMCLOCK_LIB = Path("/opt/gaia2/libsimclock.so")  # built from containers/simclock.c (Containerfile.base)
CLOCK_DIR = Path(os.environ.get("GAIA2_CLOCK_DIR", "/gaia2/clock"))
CLOCK_FILE_NAME = "offset"
ENV_REAL_CLOCK = "GAIA2_AGENT_REAL_CLOCK"  # "1": the agent keeps the machine's clock


class ProcessClock:
    """Keeps CLOCK_DIR/offset at `<simulated - real seconds>`; `update()` is cheap to call often."""

    def __init__(self, sim_time: Callable[[], float | None], directory: Path = CLOCK_DIR) -> None:
        self.sim_time = sim_time
        self.directory = directory
        self.path = directory / CLOCK_FILE_NAME
        self._written: float | None = None
        self._lock = threading.Lock()

    def prepare(self) -> None:
        """Create the directory and file: root's (when we are root), 0755 / 0644."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            os.chown(self.directory, 0, 0)
        os.chmod(self.directory, 0o755)
        self.update(force=True)

    def update(self, force: bool = False) -> None:
        sim = self.sim_time()
        if sim is None:
            return
        offset = sim - time.time()
        with self._lock:
            if not force and self._written is not None and abs(offset - self._written) < 0.002:
                return
            tmp = self.directory / f".{CLOCK_FILE_NAME}.tmp"
            # Atomic replace: a reader never sees half a line. C-locale decimal point.
            tmp.write_text(f"{offset:+.3f}\n", encoding="ascii")
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.path)
            self._written = offset

    def agent_env(self) -> dict[str, str]:
        """Variables that make the agent's process read its time from the file (empty: not faked)."""
        if not SIMCLOCK_LIB.exists():
            log.warning("%s missing: the agent keeps the machine's clock", SIMCLOCK_LIB)
            return {}
        return {"LD_PRELOAD": str(SIMCLOCK_LIB), "GAIA2_SIMCLOCK_FILE": str(self.path)}


def fakes_agent(custom_command: bool, environ: dict[str, str] | os._Environ) -> bool:
    """CLI agents (GAIA2_AGENT_COMMAND, harness images) get the simulated clock; the built-in runtimes (oracle,
    LLM loop) read simulated time from the tool API and keep real clocks for HTTP dates."""
    return custom_command and environ.get(ENV_REAL_CLOCK, "") not in ("1", "true", "yes")
