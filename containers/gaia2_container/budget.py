"""How long one model call may take, derived from the scenario's time limit: the one owner of that
arithmetic (the model relay and the built-in LLM runtime both ask here).

Why: a call with all its retries must fit in the scenario (CALL_WINDOW_SHARE of its limit), so the
agent learns of a failure, and the relay has recorded it, while the scenario still runs. Within
that window one attempt waits as long as it can, up to ARE's own client's wait: a slow local
server (one slot, minutes per answer) must get its answer, and must never be asked the same thing
again while it still computes the first. So the attempt timeout only grows with the limit, a
retry after a timeout happens only when a whole attempt still fits, and retries after an error
answer (a rate limit, a 5xx) are bounded by the window's deadline, not by shortening attempts.
Stdlib only (the runtimes import it).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from gaia2_contract import constants as contract

CALL_WINDOW_SHARE = 0.75  # one model call with all its retries fits in this share of the scenario limit
BACKOFF_SHARE = 0.25  # one wait between attempts is at most this share of that window
# ARE 1.2.0's client waits this long for one answer: its LiteLLMEngine calls litellm.completion
# without a timeout, and LiteLLM then waits 600 s (litellm/main.py: `timeout or ... or 600`).
ARE_CLIENT_TIMEOUT_S = 600.0
MIN_REQUEST_TIMEOUT_S = 60.0  # the shortest attempt under a limit of 80 s or more (0.75 x 80 s)
RELAY_TIMEOUT_S = ARE_CLIENT_TIMEOUT_S  # the relay's wait for an answer when the scenario has no limit
RELAY_GRACE_S = 5.0  # the relay waits this much longer than the agent's attempt: the agent's own
# timeout decides, never a relay error it would retry on
CALLS_TO_FIT = 10  # a slow model's note suggests a limit for this many calls (the demo scenarios take 2-7)


@dataclass(frozen=True)
class CallBudget:
    """Per-attempt timeout, retries after the first attempt, longest wait between two attempts, and
    the window one call with all its retries must end in (None: no scenario limit)."""

    timeout_s: float
    max_retries: int
    retry_max_s: float
    window_s: float | None = None

    def worst_case_s(self) -> float:
        """The longest one call can take: every attempt times out, every wait is the longest, cut
        at the window (the transport never starts what would end past it)."""
        naive = (self.max_retries + 1) * self.timeout_s + self.max_retries * self.retry_max_s
        return naive if self.window_s is None else min(naive, self.window_s)


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


def attempt_timeout(wanted_s: float, limit_s: float | None) -> float:
    """One attempt's wait: what is wanted, at most the whole call window (non-decreasing in the limit)."""
    window = call_window(limit_s)
    return wanted_s if window is None else _down(min(wanted_s, window))


def fit_call(wanted: CallBudget, limit_s: float | None) -> CallBudget:
    """`wanted` fitted to the scenario limit: one attempt may take the whole window (never shorter
    than at a smaller limit), the retries stay (each only when the window still has room: the
    transport's deadline), a wait is at most BACKOFF_SHARE of the window."""
    window = call_window(limit_s)
    if window is None:
        return wanted
    wait = _down(min(wanted.retry_max_s, window * BACKOFF_SHARE))
    return CallBudget(
        attempt_timeout(wanted.timeout_s, limit_s), max(0, wanted.max_retries), wait, _down(window)
    )


def retry_fits(timed_out: bool, remaining_s: float, timeout_s: float) -> bool:
    """Whether another attempt may start with `remaining_s` left of the call window: after a
    timeout only a whole attempt (the server may still be computing the first: asking again
    early makes a one-slot server do it twice), after an error answer any time left."""
    return remaining_s >= timeout_s if timed_out else remaining_s > 0


def _down(seconds: float) -> float:
    """Rounded down to the millisecond: a rounded budget must still fit its window."""
    return math.floor(seconds * 1000) / 1000


def relay_timeout(limit_s: float | None) -> float:
    """How long the relay waits for the provider's answer to one request: a little longer than the
    whole call window (no agent attempt is longer), so the agent's own timeout decides, never a
    relay error it would retry on; a request still unanswered by then is recorded as unanswered
    while the scenario runs. Without a limit: ARE's client's wait."""
    window = call_window(limit_s)
    if window is None or limit_s is None:
        return RELAY_TIMEOUT_S + RELAY_GRACE_S
    return min(window + RELAY_GRACE_S, limit_s)


def fitting_limit(answer_s: float) -> int:
    """A --timeout (whole minutes) under which CALLS_TO_FIT answers this slow fit, and one of them
    fits in a single attempt."""
    need = max(CALLS_TO_FIT * answer_s, min(answer_s, ARE_CLIENT_TIMEOUT_S) / CALL_WINDOW_SHARE)
    return int(math.ceil(need / 60.0) * 60)


def slow_model_note(first_answer_s: float | None, waited_s: float, limit_s: float | None) -> str:
    """What a run whose model was too slow says: the measured first-answer time (or that none came
    within `waited_s`) and the --timeout that would fit."""
    limit = f"--timeout {limit_s:.0f}" if limit_s is not None else "no time limit"
    if first_answer_s is None:
        return (
            f"the model gave no answer within {waited_s:.0f}s (one attempt's wait under {limit}): "
            f"too slow for it; a --timeout of at least {fitting_limit(waited_s)} would give it longer"
        )
    return (
        f"the model is slow for {limit}: its first answer took {first_answer_s:.0f}s; "
        f"--timeout {fitting_limit(first_answer_s)} would fit {CALLS_TO_FIT} such calls"
    )
