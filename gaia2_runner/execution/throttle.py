"""Adaptive concurrency: fewer containers at once while the provider pushes back, more again after.

Like Inspect's max-connections back-off: the job's limit halves when the provider answers with
rate limits (429), server errors (5xx) or not at all, at most once per COOLDOWN_S (one storm, seen
by several runs at once, is one signal), never below 1; after QUIET_S without any, it rises by one,
up to the configured concurrency. Runs already started keep going: a lower limit only delays the
next start.

Signals come from the relays' ledgers (output/provider_account.py PRESSURE): a rate limit after an
agent's own flood is not counted there, so an agent cannot slow the job by flooding; what an honest
agent provokes can lower the limit only for as long as it lasts, and never stops the job.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

COOLDOWN_S = 10.0  # one decrease per this many seconds, however many signals arrive
QUIET_S = 30.0  # seconds without a signal before each step back up
MIN_LIMIT = 1


class AdaptiveConcurrency:
    """The number of runs that may be in flight; thread-safe, clock injectable for tests."""

    def __init__(
        self,
        maximum: int,
        clock: Callable[[], float] = time.monotonic,
        cooldown_s: float = COOLDOWN_S,
        quiet_s: float = QUIET_S,
    ) -> None:
        self.maximum = max(MIN_LIMIT, maximum)
        self.limit = self.maximum
        self.clock, self.cooldown_s, self.quiet_s = clock, cooldown_s, quiet_s
        self._last_signal: float | None = None
        self._last_decrease: float | None = None
        self._last_increase: float | None = None
        self.lowest = self.maximum  # the lowest limit of the job (for its log and summary)
        self._lock = threading.Lock()

    def pressure(self, signals: int) -> str | None:
        """`signals` new rate limits, server errors or unanswered calls: maybe lower the limit.
        Returns what changed (one line), else None."""
        if signals <= 0:
            return None
        now = self.clock()
        with self._lock:
            self._last_signal = now
            recent = self._last_decrease is not None and now - self._last_decrease < self.cooldown_s
            if recent or self.limit <= MIN_LIMIT:
                return None
            before, self.limit = self.limit, max(MIN_LIMIT, self.limit // 2)
            self._last_decrease = now
            self.lowest = min(self.lowest, self.limit)
        return (
            f"the provider is pushing back (rate limits, server errors or no answer): concurrency "
            f"lowered from {before} to {self.limit} of {self.maximum}"
        )

    def tick(self) -> str | None:
        """Raise the limit by one after a quiet spell (and again after each further one)."""
        now = self.clock()
        with self._lock:
            if self.limit >= self.maximum or self._last_signal is None:
                return None
            since = max(self._last_signal, self._last_increase or self._last_signal)
            if now - since < self.quiet_s:
                return None
            self.limit += 1
            self._last_increase = now
        return f"the provider recovered: concurrency raised to {self.limit} of {self.maximum}"

    def admits(self, in_flight: int) -> bool:
        with self._lock:
            return in_flight < self.limit
