"""How long one model call may take, derived from the scenario's time limit: the one owner of that
arithmetic (the model relay and the built-in LLM runtime both ask here).

Why: a request timeout of 300 s with 4 retries (and up to 60 s between them) could outlast the
whole scenario (420 s by default), so a provider that stopped answering ended the run as the
agent's timeout with nothing saying why. Here one call, every retry and wait included, fits in
CALL_WINDOW_SHARE of the scenario limit by construction: the agent learns of the failure, and the
relay has recorded it, while the scenario still runs. Stdlib only (the runtimes import it).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Mapping

from gaia2_contract import constants as contract

CALL_WINDOW_SHARE = 0.75  # one model call with all its retries fits in this share of the scenario limit
BACKOFF_SHARE = 0.25  # at most this share of that window is spent waiting between attempts
MIN_REQUEST_TIMEOUT_S = 60.0  # rather fewer retries than attempts shorter than this (slow local models)
MIN_RETRIES = 2  # ... but never fewer: a rate limit must not end a call at once, and the relay's
                 # witness of an outage needs two failures in a row (provider_ledger.UNAVAILABLE_STREAK)
RELAY_TIMEOUT_S = 600.0  # the relay's wait for an answer when the scenario has no time limit


@dataclass(frozen=True)
class CallBudget:
    """Per-attempt timeout, retries after the first attempt, longest wait between two attempts."""

    timeout_s: float
    max_retries: int
    retry_max_s: float

    def worst_case_s(self) -> float:
        """The longest one call can take: every attempt times out, every wait is the longest."""
        return (self.max_retries + 1) * self.timeout_s + self.max_retries * self.retry_max_s


def scenario_timeout(environ: Mapping[str, str] | None = None) -> float | None:
    """GAIA2_SCENARIO_TIMEOUT in seconds; None when unset, zero or unreadable (no limit)."""
    raw = (os.environ if environ is None else environ).get(contract.ENV_SCENARIO_TIMEOUT, "")
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def call_window(limit_s: float | None) -> float | None:
    """Seconds one model call may take in all, or None without a scenario limit."""
    return None if limit_s is None else limit_s * CALL_WINDOW_SHARE


def fit_call(wanted: CallBudget, limit_s: float | None) -> CallBudget:
    """`wanted` when it fits the scenario limit, else the nearest that does: waits first shrink to
    their share, then retries go (down to MIN_RETRIES) while attempts would be shorter than
    MIN_REQUEST_TIMEOUT_S, then the attempts themselves shorten to fit."""
    window = call_window(limit_s)
    if window is None or wanted.worst_case_s() <= window:
        return wanted
    retries = max(0, wanted.max_retries)
    while True:
        wait = min(wanted.retry_max_s, window * BACKOFF_SHARE / retries) if retries else 0.0
        timeout = min(wanted.timeout_s, (window - retries * wait) / (retries + 1))
        if timeout >= MIN_REQUEST_TIMEOUT_S or timeout >= wanted.timeout_s or retries <= MIN_RETRIES:
            return CallBudget(_down(timeout), retries, _down(wait) if retries else wanted.retry_max_s)
        retries -= 1


def _down(seconds: float) -> float:
    """Rounded down to the millisecond: a rounded budget must still fit its window."""
    return math.floor(seconds * 1000) / 1000


def relay_timeout(limit_s: float | None) -> float:
    """How long the relay waits for the provider's answer to one request: the whole call window (a
    request still unanswered by then is recorded as unanswered while the scenario runs)."""
    window = call_window(limit_s)
    return RELAY_TIMEOUT_S if window is None else min(RELAY_TIMEOUT_S, window)
