"""The ledger's arbitration: what the agent's own requests provoke is only a suspicion, and the
runner's own probe (probe.py) decides it. A configuration fault when the probe is refused too, a
confirmed outage when it fails too, else the agent's own doing (the run's note). A base of
ProviderLedger (ledger.py); it uses the ledger's state and lock."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from ..processes import start_thread
from .faults import AGENT, CONFIGURATION, OK, UNANSWERED
from .outcome import UNAVAILABLE_STREAK, Call, Outcome
from .paths import is_model_call
from .probe import Evidence, ProviderProbe

log = logging.getLogger("gaia2.provider")


class Arbitration:
    """The probing half of ProviderLedger: every attribute below is set by ProviderLedger.__init__."""

    probe: ProviderProbe | None
    counts: dict[str, int]
    fault: str | None
    on_fault: Callable[[str], None] | None
    clock: Callable[[], float]
    slow_wait_s: float
    _lock: threading.Lock
    _idle: threading.Event
    _probing: bool
    _suspected: tuple[float, str, str] | None
    _config_suspect: str | None
    _cleared: dict[str, str]
    _pending: dict[int, Call]
    _outcomes: deque[Outcome]
    _answered: bool
    _last_unanswered: tuple[float, float, str] | None
    _last_failure: float

    def _changed(self) -> None:
        raise NotImplementedError

    @staticmethod
    def _tell(callback: Callable[[Any], None] | None, value: Any) -> None:
        raise NotImplementedError

    def _probe_soon(self) -> None:
        """Ask the probe on a thread of its own (the agent's call is not held up by it); at most
        one at a time, and a recent answer stands (ProviderProbe reuses it)."""
        if self.probe is None:
            return
        with self._lock:
            if self._probing:
                return
            self._probing = True
            self._idle.clear()

        def run() -> None:
            try:
                self._arbitrate(fresh=False)
            finally:
                with self._lock:
                    self._probing = False
                self._idle.set()

        start_thread(run, "provider-probe")

    def _arbitrate(self, fresh: bool) -> Evidence | None:
        """Probe for the last suspicion and act on the answer: a configuration fault when the
        runner's own request is refused too, a confirmed outage (the job's pressure) when it fails
        too, else the agent's own doing (a configuration suspicion becomes the run's note).
        `fresh`: a probe sent after the suspicion (at the run's end), not a recent one."""
        with self._lock:
            suspected = self._suspected
            if suspected is None and self._config_suspect is not None:
                suspected = (self.clock(), self._config_suspect, CONFIGURATION)
        if self.probe is None or suspected is None:
            return None
        evidence = self.probe.ask(newer_than=suspected[0] if fresh else None)
        fault = None
        with self._lock:
            self.counts["probes"] = self.probe.sent
            current = self._suspected is suspected  # else decided by another thread, or a newer one waits
            if current:
                self._suspected = None
            if evidence.kind == CONFIGURATION and self.fault is None:
                fault = self.fault = evidence.words
            elif evidence.kind == OK and self._config_suspect is not None:
                self.counts[AGENT] += 1
                self._cleared.setdefault(
                    CONFIGURATION,
                    f"the provider refused the agent's own request "
                    f"({self._config_suspect}); {evidence.words}, so it "
                    f"counts as the agent's",
                )
                self._config_suspect = None
            elif current and evidence.unavailable:
                self.counts["confirmed_unavailable"] += 1
        if fault:
            log.error("configuration fault: %s", fault)
            self._tell(self.on_fault, fault)
        self._changed()
        return evidence

    def settle(self) -> None:
        """Decide the last suspicion now, with a probe sent after it (or in flight since)."""
        self._idle.wait((self.probe.timeout_s + 5) if self.probe is not None else 0)
        with self._lock:
            pending = self._suspected is not None or self._config_suspect is not None
        if pending:
            self._arbitrate(fresh=True)

    def provider_unavailable(self) -> str | None:
        """Why the run has no verdict, by the runner's own evidence (else None): a configuration
        fault the probe confirmed, or an outage the relay saw (it never answered at all, or the last
        UNAVAILABLE_STREAK requests all failed for availability) that the probe, asked now, sees too.
        An outage the probe does not see was the agent's doing: it goes into the run's note."""
        self.settle()
        with self._lock:
            if self.fault is not None:
                return f"configuration fault: {self.fault}"
        seen = self._outage_seen()
        if seen is None:
            return None
        with self._lock:  # the provider's state after the last failure seen, not an older answer
            since = max([self._last_failure, *(c.started for c in self._pending.values())])
        evidence = self.probe.ask(newer_than=since) if self.probe is not None else None
        with self._lock:
            self.counts["probes"] = self.probe.sent if self.probe is not None else 0
            if evidence is not None and evidence.kind == CONFIGURATION and self.fault is None:
                self.fault = evidence.words
        self._changed()
        if evidence is None or evidence.kind == OK:
            with self._lock:
                self._cleared["outage"] = f"{seen}; " + (
                    f"{evidence.words}, so it counts as the agent's"
                    if evidence
                    else "the runner has no request of its own to check it, so it counts as the agent's"
                )
            return None
        if evidence.kind == CONFIGURATION:
            return f"configuration fault: {evidence.words}"
        return f"{seen}; {evidence.words}"

    def _outage_seen(self) -> str | None:
        """What the relay itself saw of an outage on the agent's traffic (else None)."""
        now = self.clock()
        with self._lock:
            # Only model calls: a model list nobody answers says nothing of the model (paths.py).
            pending = sorted(
                (call for call in self._pending.values() if is_model_call(call.request.path)),
                key=lambda c: c.started,
            )
            unanswered = self.counts[UNANSWERED]
            if not self._answered and (unanswered or pending):
                waits = [(call.started, now - call.started, "still waiting") for call in pending[-1:]]
                waits += [self._last_unanswered] if self._last_unanswered else []
                _, waited, why = max(waits, key=lambda wait: wait[0])  # the call started last
                return (
                    f"the provider never answered ({unanswered + len(pending)} calls, "
                    f"last after {waited:.0f} s: {why})"
                )
            # Calls still waiting past SLOW_WAIT_S are unanswered too (the agent left before them).
            waiting = [
                Outcome(
                    call.request.bare_path,
                    None,
                    "still waiting",
                    now - call.started,
                    call.bursting,
                    UNANSWERED,
                )
                for call in pending
                if now - call.started >= self.slow_wait_s
            ]
            recent = (list(self._outcomes) + waiting)[-UNAVAILABLE_STREAK:]
        if len(recent) == UNAVAILABLE_STREAK and all(o.unavailable for o in recent):
            return recent[-1].describe()
        return None
