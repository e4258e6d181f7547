"""The relay's account of the agent's provider: every request's outcome, classified
(faults.py), the tokens used, and what the run concludes from them.

It is the runner's witness (docs/reference/container-contract.md, "Model relay"): the session asks it whether
the provider was unavailable when the agent stopped, the daemon's status carries its counts (the
job lowers its concurrency on confirmed rate limits and server errors, and sums costs from its
tokens), and it decides when the run must end: at once on a configuration fault, judged when a
call is refused past the token budget. What the agent's own requests provoke is only a suspicion:
a fault counts when the runner's own probe (probe.py) fails the same way, else the
refusal was the agent's doing and goes into the run's note. Thread-safe: the relay serves each
request on its own thread; probes run on a thread of their own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from .arbiter import Arbitration
from .faults import (
    CONFIGURATION,
    CONTEXT_OVERFLOW,
    OK,
    RATE_LIMIT,
    SERVER_ERROR,
    UNANSWERED,
    Request,
    RunnerSetup,
    classify,
)
from .outcome import (
    BURST_LIMIT,
    BURST_WINDOW_S,
    RECENT_OUTCOMES,
    SLOW_WAIT_S,
    Call,
    Outcome,
)
from .paths import is_model_call
from .probe import ProviderProbe
from .token_budget import TokenBudget
from .usage import Tokens, reservation, tokens_of

log = logging.getLogger("gaia2.provider")


class ProviderLedger(Arbitration):
    def __init__(
        self,
        setup: RunnerSetup | None = None,
        token_budget: int | None = None,
        on_change: Callable[[dict[str, Any]], None] | None = None,
        on_fault: Callable[[str], None] | None = None,
        on_budget: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        paced: bool = False,
        slow_wait_s: float = SLOW_WAIT_S,
        probe: ProviderProbe | None = None,
    ) -> None:
        """`paced`: the agent is the runner's own built-in runtime, which sends one request at a
        time and honours Retry-After: it cannot flood, so the flood rule never applies to it (its
        real rate limits stay evidence of an outage, and slow the job down). `probe`: the
        runner's own request; without one nothing the agent provokes is ever the provider's."""
        self.setup = setup or RunnerSetup()
        self.probe = probe
        self._suspected: tuple[float, str, str] | None = None  # (when, what, kind) of the last suspicion
        self._config_suspect: str | None = None  # the first configuration suspicion no probe has decided
        self._probing = False
        self._idle = threading.Event()  # no probe running on the ledger's own thread
        self._idle.set()
        self._cleared: dict[
            str, str
        ] = {}  # suspicions the probe cleared, by kind (the first each): the run's note
        self.paced = paced
        self.slow_wait_s = slow_wait_s
        self.token_budget = token_budget
        self.on_change, self.on_fault, self.on_budget = on_change, on_fault, on_budget
        self.clock = clock
        self._lock = threading.Lock()
        self._outcomes: deque[Outcome] = deque(maxlen=RECENT_OUTCOMES)
        self._sent: deque[float] = deque(maxlen=BURST_LIMIT + 1)
        self._flooded = False
        self._pending: dict[int, Call] = {}
        self._last_unanswered: tuple[float, float, str] | None = None  # (started, seconds waited, why)
        self._last_failure = 0.0  # when a model call last failed for availability
        self._answered = False  # any HTTP answer at all
        self._succeeded = False  # any 2xx
        self.counts = _zero_counts()
        self.tokens = Tokens()
        self.budget = TokenBudget(token_budget)  # one object for the ledgers that share it (share_budget)
        self.by_model: dict[str, dict[str, int]] = {}
        self.fault: str | None = None
        self.context_reason: str | None = None
        self._budget_note: str | None = None

    # ---- one request -------------------------------------------------------------------------
    def begin(self, request: Request) -> Call:
        """Count a request about to be sent; whether the agent has flooded (now or earlier)."""
        now = self.clock()
        with self._lock:
            self._sent.append(now)
            if not self.paced and len(self._sent) > BURST_LIMIT and now - self._sent[0] <= BURST_WINDOW_S:
                self._flooded = True
            call = Call(now, request, self._flooded)
            self._pending[id(call)] = call
            self.counts["calls"] += 1
        self._changed()
        return call

    def abandon(self, call: Call) -> None:
        """The request never left (the agent's malformed request): no outcome to account."""
        with self._lock:
            self._pending.pop(id(call), None)

    def finish(
        self,
        call: Call,
        url: str,
        status: int | None,
        error: str | None,
        body: bytes = b"",
        waited_s: float | None = None,
        hung_up: bool = False,
    ) -> Outcome:
        """Classify and account one answer (or its absence); tell the run what follows. `waited_s`:
        how long the provider took to start answering; `hung_up`: the agent had stopped waiting by
        then. A slow answer nobody was left to read is the provider's silence (SLOW_WAIT_S)."""
        text = body[:65536].decode("utf-8", errors="replace")
        with self._lock:
            self._pending.pop(id(call), None)
            duration = self.clock() - call.started
            billed = status is not None and 200 <= status < 300  # the provider generated it: it costs
            if (
                hung_up
                and status is not None
                and (waited_s if waited_s is not None else duration) >= self.slow_wait_s
            ):
                status, error = (
                    None,
                    f"answered only after {waited_s or duration:.0f} s, when the agent had stopped waiting",
                )
            verdict = classify(self.setup, call.request, status, text, self._succeeded, url)
            outcome = Outcome(url, status, error, duration, call.bursting, verdict.kind)
            counted = "rate_limit_burst" if verdict.kind == RATE_LIMIT and call.bursting else verdict.kind
            self.counts[counted] += 1
            # Only model calls tell of the provider (paths.py): a model list or a token count
            # neither makes nor breaks an outage streak, nor counts tokens.
            model_call = is_model_call(call.request.path)
            if model_call:
                self._outcomes.append(outcome)
                self._answered |= status is not None
                self._succeeded |= verdict.kind == OK
            if verdict.kind == UNANSWERED:
                self._last_unanswered = (call.started, duration, error or "no answer")
            if model_call and outcome.unavailable:
                self._last_failure = self.clock()
            if billed and model_call and not call.charged:  # answered late to nobody: charged all the same
                self._count_tokens(call.request, tokens_of(body))
            if verdict.kind == CONTEXT_OVERFLOW:
                self.context_reason = verdict.reason
            suspect = verdict.kind == CONFIGURATION or (model_call and outcome.unavailable)
            if suspect:  # the agent's traffic suggests a fault: the runner's own probe decides
                self._suspected = (self.clock(), verdict.reason or outcome.describe(), verdict.kind)
            if verdict.kind == CONFIGURATION and self._config_suspect is None:
                self._config_suspect = verdict.reason  # kept until a probe decides it, whatever follows
        if suspect:
            self._probe_soon()
        self._changed()
        return outcome

    def spent(self) -> int:
        """Tokens counted so far (under the lock: a whole answer's or none)."""
        with self._lock:
            return self.tokens.total

    def share_budget(self, other: ProviderLedger) -> None:
        """Both ledgers spend one token budget (Agent2Agent: the agent's and its expert agents'
        calls), so an agent cannot pass its work to experts to spend past --max-tokens. Call it
        before either ledger sees a request: the other ledger's book is replaced."""
        self.budget.shared = True
        other.budget = self.budget

    def refuse_for_budget(self) -> str | None:
        """Why a new request must not be sent (the token budget is spent), else None."""
        return self._budget_check(None, None)

    def reserve(self, request: Request, size: int) -> str | None:
        """Why `request` (a body of `size` bytes) must not be sent: what the run spent plus what
        its calls in flight hold reached the token budget (token_budget.py). Else None, and a model
        call holds its reservation until its answer is charged (finish) or `release`d."""
        estimate = reservation(request.body, size) if is_model_call(request.path) else None
        return self._budget_check(id(request), estimate)

    def cut_short(self, request: Request) -> None:
        """The answer to `request` did not come whole: it is charged at least its reservation."""
        self.budget.cut(id(request))

    def release(self, request: Request) -> None:
        """The call is over: a reservation its answer did not replace is dropped (no answer, an error)."""
        self.budget.release(id(request))

    def _budget_check(self, key: int | None, estimate: Tokens | None) -> str | None:
        over = self.budget.hold(key, estimate)
        if over is None:
            return None
        with self._lock:
            self.counts["refused_budget"] += 1
            first = self._budget_note is None
            if first:
                self._budget_note = self.budget.exhausted(*over)
            note = self._budget_note
        if first:
            self._tell(self.on_budget, note)
        self._changed()
        return note

    def charge_in_flight(self) -> None:
        """The run is over: each model call still in flight is charged its reservation now (its
        answer may come after the account is published), and not again when it ends."""
        with self._lock:
            for call in self._pending.values():
                if is_model_call(call.request.path) and not call.charged:
                    self.budget.cut(id(call.request))
                    self._count_tokens(call.request, Tokens())
                    call.charged = True
        self._changed()

    def refuse_model(self) -> None:
        """Count a request the relay refused for naming another model than the run's (relay/body.py)."""
        with self._lock:
            self.counts["refused_model"] += 1
        self._changed()

    def _count_tokens(self, request: Request, used: Tokens) -> None:
        used = self.budget.charge(id(request), used)  # the reservation's floor (token_budget.py)
        self.tokens.add(used)
        entry = self.by_model.setdefault(
            request.model() or "unknown", {"calls": 0, "input": 0, "output": 0, "cached": 0}
        )
        entry["calls"] += 1
        entry["input"] += used.input
        entry["output"] += used.output
        entry["cached"] += used.cached

    def context_overflow(self) -> str | None:
        """The last context overflow the relay saw (the agent's failure: a note, never an error)."""
        with self._lock:
            return self.context_reason

    def notes(self) -> str | None:
        """What the run's note says of the provider: a context overflow, refusals and failures the
        runner's probe showed to be the agent's own (notes, never errors)."""
        with self._lock:
            found = [self.context_reason, *self._cleared.values()]
        return "; ".join(note for note in found if note) or None

    def summary(self) -> dict[str, Any]:
        """For the daemon's status (`provider`): counts, tokens, the fault, the budget."""
        with self._lock:
            return {
                **self.counts,
                "tokens": {
                    "input": self.tokens.input,
                    "output": self.tokens.output,
                    "cached": self.tokens.cached,
                },
                "by_model": {name: dict(entry) for name, entry in self.by_model.items()},
                "fault": None if self.fault is None else {"kind": CONFIGURATION, "reason": self.fault},
                "token_budget": self.token_budget,
                "budget_exhausted": self._budget_note is not None,
            }

    def _changed(self) -> None:
        if self.on_change is not None:
            self._tell(self.on_change, self.summary())

    @staticmethod
    def _tell(callback: Callable[[Any], None] | None, value: Any) -> None:
        if callback is None:
            return
        try:
            callback(value)
        except Exception:  # noqa: BLE001 - accounting must never break the agent's call
            log.exception("acting on a provider outcome failed")


def _zero_counts() -> dict[str, int]:
    """The status's counts, by outcome kind and by what the ledger refused or probed."""
    return {
        "calls": 0,
        OK: 0,
        RATE_LIMIT: 0,
        SERVER_ERROR: 0,
        UNANSWERED: 0,
        "rate_limit_burst": 0,
        CONTEXT_OVERFLOW: 0,
        "agent": 0,
        CONFIGURATION: 0,
        "refused_budget": 0,
        "refused_model": 0,
        "probes": 0,
        "confirmed_unavailable": 0,
    }
