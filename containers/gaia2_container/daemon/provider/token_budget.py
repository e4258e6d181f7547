"""One run's token budget (--max-tokens, GAIA2_TOKEN_BUDGET), as the relay's ledgers spend it.

A budget that only counted answers already in would let an agent overshoot it at will: twenty
calls sent at once all pass a check made before any of them is answered. So each model call in
flight holds a reservation (usage.reservation: its output limit plus its prompt estimated), a new
call is refused once what was spent plus what is held reaches the budget, and overshooting it
takes at most one call's reservation. When a call is answered its reservation is replaced by what
it cost: the usage the answer reports, or, when it reports none or was cut short, at least the
reservation (never zero: an agent cannot spend through answers that do not say what they cost).

The agent's ledger and its expert agents' (Agent2Agent) share one TokenBudget
(ProviderLedger.share_budget). Thread-safe: the relays serve each request on its own thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from .usage import Tokens


@dataclass
class Held:
    """A call's reservation while it is in flight."""

    estimate: Tokens
    cut: bool = False  # the answer did not come whole (the agent hung up, the stream broke)


class TokenBudget:
    def __init__(self, limit: int | None) -> None:
        self.limit = limit  # None: no budget, the book is still kept
        self.shared = False  # the agent's and its expert agents' ledgers spend it
        self._lock = threading.Lock()
        self._spent = 0
        self._held: dict[int, Held] = {}

    def hold(self, key: int | None, estimate: Tokens | None) -> tuple[int, int] | None:
        """Reserve `estimate` for the call `key` (None: only check); when what is spent and held
        already reached the limit, reserve nothing and return (spent, held)."""
        with self._lock:
            held = sum(h.estimate.total for h in self._held.values())
            if self.limit is not None and self._spent + held >= self.limit:
                return self._spent, held
            if key is not None and estimate is not None:
                self._held[key] = Held(estimate)
            return None

    def cut(self, key: int) -> None:
        """The call's answer came incomplete: its reported usage may be partial."""
        with self._lock:
            if key in self._held:
                self._held[key].cut = True

    def charge(self, key: int, used: Tokens) -> Tokens:
        """What an answered call costs, now spent: the usage it reports, at least its reservation
        when it reports none or came incomplete (a call that held none: its usage as reported)."""
        with self._lock:
            held = self._held.pop(key, None)
            cost = used
            if held is not None and (held.cut or used.total == 0):
                cost = used.at_least(held.estimate)
            self._spent += cost.total
            return cost

    def release(self, key: int) -> None:
        """The call ended without an answer to charge (an error status, no answer, never sent)."""
        with self._lock:
            self._held.pop(key, None)

    def exhausted(self, spent: int, held: int) -> str:
        """The run's note when a call is refused past the budget."""
        whose = "the agent's and its expert agents'" if self.shared else "the agent's"
        flight = f" (and calls in flight hold {held} more)" if held else ""
        return (
            f"token budget exhausted: {whose} model calls used {spent} tokens{flight} "
            f"of the {self.limit} allowed per scenario (--max-tokens)"
        )

    def state(self) -> tuple[int, int]:
        """(spent, held) right now."""
        with self._lock:
            return self._spent, sum(h.estimate.total for h in self._held.values())
