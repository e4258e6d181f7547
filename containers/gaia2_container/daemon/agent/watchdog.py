"""The container's own end: it stops when its runner is gone, so no runner death leaves it running.

A runner polls /status every half second while a scenario runs, so a long silence on the adapter
API means the runner was killed (kill -9, OOM, power loss of its terminal…) and nobody will ever
collect or remove this container. Then the daemon ends the scenario, writes its final files and
exits, which stops the container (the runner's next invocation removes it). The hard deadline
covers a runner that keeps polling but never collects.

Only requests carrying the adapter token count (http/server.py calls `touch` for those alone): the
agent can reach the adapter port from inside the container, and must not be able to keep an
abandoned container alive.

While the daemon loads (a cold start's ARE imports, the scenario, the agent's start) silence is measured against
LOADING_IDLE_S instead: a daemon starved of CPU there (measured: a 32 s load on a 2-core host at a
load of 50+) can go longer than a short idle timeout without hearing its runner's requests, and must
not take a live runner for gone. The deadline counts as always, and the allowance is finite, so a
load that hangs still ends the container.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from gaia2_contract import constants as contract

log = logging.getLogger("gaia2.watchdog")

CHECK_EVERY_S = 0.5
EXIT_GRACE_S = 20.0  # how long main() gets to write the final files before the watchdog exits itself
LOADING_IDLE_S = 300.0  # the silence allowed while loading, when the idle timeout is shorter


@dataclass
class Limits:
    """When the container ends itself; None disables a limit."""

    idle_s: float | None
    deadline_s: float | None

    @classmethod
    def from_env(cls, env: Mapping[str, str], scenario_timeout_s: float | None) -> Limits:
        """GAIA2_IDLE_TIMEOUT (default 60 s, 0 = never), GAIA2_DEADLINE (default scenario timeout +
        600 s; none without a scenario timeout)."""
        idle = _seconds(env.get(contract.ENV_IDLE_TIMEOUT), contract.DEFAULT_IDLE_TIMEOUT_S)
        default_deadline = (
            (scenario_timeout_s + contract.DEFAULT_DEADLINE_GRACE_S) if scenario_timeout_s else 0.0
        )
        deadline = _seconds(env.get(contract.ENV_DEADLINE), default_deadline)
        return cls(idle_s=idle or None, deadline_s=deadline or None)


def _seconds(raw: str | None, default: float) -> float:
    try:
        value = float(raw) if raw not in (None, "") else float(default)
    except ValueError:
        log.warning("ignoring a non-numeric limit %r: using %s", raw, default)
        value = float(default)
    return max(value, 0.0)


@dataclass
class Watchdog:
    """Tracks the runner's last request; `expired` is set once, with `reason`, when a limit passes."""

    limits: Limits
    started: float = field(default_factory=time.monotonic)
    last_seen: float = field(default=0.0)
    expired: threading.Event = field(default_factory=threading.Event)
    reason: str | None = None
    status: str = "error"  # the final status a scenario cut short by the watchdog gets
    loading_since: float | None = None  # set while the daemon loads (see `loading`)

    def __post_init__(self) -> None:
        self.last_seen = self.last_seen or self.started

    def touch(self) -> None:
        """Called for every adapter request that carries the adapter token: the runner is there."""
        self.last_seen = time.monotonic()

    def rearm(self, limits: Limits) -> None:
        """New limits counted from now: a warm container's, once it is given its scenario."""
        self.started = self.last_seen = time.monotonic()
        self.limits = limits

    @contextmanager
    def loading(self) -> Iterator[None]:
        """A load (ARE, a scenario, the agent's start): silence is allowed up to LOADING_IDLE_S, and
        the idle clock starts afresh when it ends, so the runner's next request is heard before it
        counts. The agent is started as the load's last step: nothing it does can prolong it."""
        self.loading_since = time.monotonic()
        try:
            yield
        finally:
            self.last_seen = max(self.last_seen, time.monotonic())
            self.loading_since = None

    def check(self, now: float) -> tuple[str, str] | None:
        """(final status, reason) when the container should end at monotonic time `now`, else None."""
        limits = self.limits
        if limits.deadline_s is not None and now - self.started >= limits.deadline_s:
            return "error", f"container deadline of {limits.deadline_s:g}s passed"
        idle_s = limits.idle_s
        if idle_s is not None and self.loading_since is not None:
            idle_s = max(idle_s, LOADING_IDLE_S)
        if idle_s is not None and now - self.last_seen >= idle_s:
            return "error", f"runner gone: no request from it for {idle_s:g}s"
        return None

    def start(self, on_expire: Callable[[str, str], None], finished: threading.Event) -> None:
        """Watch in a thread; on expiry call `on_expire(status, reason)` (ends the session so main()
        writes the final files), then give main() EXIT_GRACE_S to finish before exiting the process."""
        threading.Thread(target=self._run, args=(on_expire, finished), name="watchdog", daemon=True).start()

    def _run(self, on_expire: Callable[[str, str], None], finished: threading.Event) -> None:
        while (found := self.check(time.monotonic())) is None:
            time.sleep(CHECK_EVERY_S)
        self.status, self.reason = found
        log.warning("%s: ending the scenario and exiting", self.reason)
        self.expired.set()
        try:
            on_expire(self.status, self.reason)
        except Exception:  # noqa: BLE001 - exiting matters more than a clean verdict
            log.exception("ending the scenario failed")
        if not finished.wait(EXIT_GRACE_S):
            log.error("final files not written within %.0fs: exiting anyway", EXIT_GRACE_S)
        logging.shutdown()
        os._exit(0 if finished.is_set() else 1)
