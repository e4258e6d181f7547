"""What the provider ledger (ledger.py) counts: one answer's outcome, one call in flight, and the
thresholds of the flood and outage rules."""

from __future__ import annotations

from dataclasses import dataclass

from ... import budget
from .faults import OK, RATE_LIMIT, UNAVAILABLE_KINDS, Request

# How many failures in a row, at the end, count as "the provider is unavailable".
UNAVAILABLE_STREAK = 2
# A flood provokes rate limits: once the agent has sent more than BURST_LIMIT requests within
# BURST_WINDOW_S (at once or one after another), a rate limit (429) is its own doing for the rest of
# the run: never evidence of an outage, never a reason for the job to slow down. Server errors and
# an unreachable provider still count (a flood does not crash a provider, and a fast honest loop
# must still see its server die). Not a proof: docs/reference/container-contract.md says what it leaves open.
BURST_LIMIT = 30
BURST_WINDOW_S = 120.0
RECENT_OUTCOMES = 64
# A wait this long for the provider is what an honest agent gives up after (the built-in runtime's
# shortest attempt, budget.py): a call still waiting that long, or answered only after the agent
# had hung up, is the provider's silence. Shorter waits prove nothing: an agent that hangs up at
# once, or exits with requests in flight, must not make a run it is failing an infrastructure error.
SLOW_WAIT_S = budget.MIN_REQUEST_TIMEOUT_S


@dataclass(frozen=True)
class Outcome:
    url: str
    status: int | None  # None: no HTTP answer (unreachable, timed out)
    error: str | None
    duration_s: float
    bursting: bool = False  # sent after the agent's own flood (BURST_LIMIT)
    kind: str = OK  # provider_faults kind

    @property
    def unavailable(self) -> bool:
        if self.bursting and self.kind == RATE_LIMIT:
            return False
        return self.kind in UNAVAILABLE_KINDS

    def describe(self) -> str:
        if self.status is None:
            return f"provider error: cannot reach {self.url}: {self.error}"
        return f"provider error: HTTP {self.status} from {self.url}"


@dataclass
class Call:
    """One request in flight."""

    started: float
    request: Request
    bursting: bool
    charged: bool = False  # charged its reservation when the run ended before its answer
