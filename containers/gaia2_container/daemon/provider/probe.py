"""The runner's own evidence about a provider: the preflight's minimal request, sent right then.

Why: what the agent's requests provoke proves nothing about the provider. An agent can get a 401
by sending its placeholder in the wrong header, a 402 by asking for a million output tokens, a 403
from a web firewall with a word in its prompt, a 404 from a path the server lacks, a dropped
connection with an oversized body, or a "still waiting" by asking for a long generation. Each of
these, believed, would stop the job (a configuration fault), lower its concurrency or turn the
agent's failure into an infrastructure error that --retry reruns. So a refusal or failure seen on
the agent's traffic counts as the provider's or the configuration's only when this probe, the
preflight's own text request (containers/gaia2_container/preflight.py) with the run's real key,
configured model and endpoint, sent from inside the container at that moment, fails the same way.
Otherwise it was the agent's own request (docs/guide/security.md, "Who is blamed for what").

One probe at a time, and an answer is reused for PROBE_REUSE_S: an honest run sends none, a run
with suspected faults one per suspicion window, however many requests the agent makes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .faults import (
    AUTH_STATUSES,
    CONFIGURATION,
    MODEL_NOT_FOUND,
    NOT_FOUND,
    OK,
    PAYMENT_STATUS,
    QUOTA,
    RATE_LIMIT,
    RATE_LIMITED,
    SERVER_ERROR,
    SERVER_STATUSES,
    UNANSWERED,
    UNAVAILABLE_KINDS,
)

log = logging.getLogger("gaia2.probe")

PROBE_TIMEOUT_S = 20.0  # a minimal request ("reply OK", 8 tokens) answered later than this is no answer
PROBE_REUSE_S = 30.0  # an answer this recent stands for the provider's state now


@dataclass(frozen=True)
class Evidence:
    """What the runner's own request got: a provider_faults kind and one line saying so."""

    kind: str  # OK, CONFIGURATION, RATE_LIMIT, SERVER_ERROR or UNANSWERED
    words: str
    started: float  # on the probe's clock
    seconds: float

    @property
    def unavailable(self) -> bool:
        return self.kind in UNAVAILABLE_KINDS


def kind_of(status: int | None, failure: str | None, detail: str) -> str:
    """The provider_faults kind of the runner's own request's outcome: OK (answered, or no request
    could be built: no evidence), UNANSWERED, RATE_LIMIT, SERVER_ERROR, else CONFIGURATION (any
    other refusal of a minimal request of the runner's is its configuration's)."""
    if failure == "settings" or (status is not None and 200 <= status < 300):  # "unreadable" 2xx: alive
        return OK
    if status is None:
        return UNANSWERED
    if status in RATE_LIMITED and not QUOTA.search(detail):
        return RATE_LIMIT
    if status in SERVER_STATUSES or status >= 500:
        return SERVER_ERROR
    return CONFIGURATION


def evidence_of(probe: Any, model: str | None, started: float) -> Evidence:
    """The kind of a preflight Probe's outcome (status, failure, detail, seconds, url), in the words
    the run's record and the job's error line use."""
    status, failure, detail = probe.status, probe.failure, probe.detail or "no message"
    seconds = float(getattr(probe, "seconds", 0.0) or 0.0)
    where = f"HTTP {status} from {getattr(probe, 'url', '') or 'the endpoint'}"
    kind = kind_of(status, failure, detail)
    words = {
        OK: f"the runner's own request could not be built ({detail})"
        if failure == "settings"
        else f"the runner's own request with the configured key, model and endpoint was answered in {seconds:.1f} s",
        UNANSWERED: f"the runner's own request got no answer either ({failure}: {detail})",
        RATE_LIMIT: f"the runner's own request was rate limited too ({where}: {detail})",
        SERVER_ERROR: f"the runner's own request failed too ({where}: {detail})",
    }.get(kind) or configuration_words(status or 0, detail, where, model)
    return Evidence(kind, words, started, seconds)


def configuration_words(
    status: int,
    detail: str,
    where: str,
    model: str | None,
    whose: str = "the provider",
    key: str = "the configured API key",
    settings: str = "the base URL and the model",
) -> str:
    """Why the runner's own minimal request was refused, as the job's error line says it (`whose`,
    `key`, `settings`: the judge's words for the judge's probe)."""
    if status in AUTH_STATUSES and not QUOTA.search(detail):
        what = f"{whose} refused {key}"
    elif status == PAYMENT_STATUS or QUOTA.search(detail):
        what = f"{whose} refused for payment or quota"
    elif status == NOT_FOUND and MODEL_NOT_FOUND.search(detail):
        what = (
            f"{whose} does not know the model {model!r}"
            if model
            else f"{whose} does not know the configured model"
        )
    elif status == NOT_FOUND:
        what = f"{whose} answered 404: check {settings}"
    else:
        what = f"{whose} refused the runner's own minimal request"
    return f"{what} ({where}: {detail}; the runner's own request was refused)"


class ProviderProbe:
    """Asks the provider with the runner's own request: one at a time, a recent answer reused.

    `send(deadline)` sends the request and returns a preflight Probe (the probe's `url` may be set);
    `clock` is monotonic (tests move it)."""

    def __init__(
        self,
        send: Callable[[float], Any],
        model: str | None,
        timeout_s: float = PROBE_TIMEOUT_S,
        reuse_s: float = PROBE_REUSE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.send, self.model = send, model
        self.timeout_s, self.reuse_s, self.clock = timeout_s, reuse_s, clock
        self._cond = threading.Condition()
        self._running = False
        self.last: Evidence | None = None
        self.sent = 0  # probes sent so far (the status shows it)

    def ask(self, newer_than: float | None = None) -> Evidence:
        """The provider's state now: the last answer when it started after `newer_than` and is
        recent, else a new probe (waiting for one already in flight)."""
        with self._cond:
            while True:
                last = self.last
                fresh = (
                    last is not None
                    and self.clock() - last.started < self.reuse_s
                    and (newer_than is None or last.started >= newer_than)
                )
                if fresh and not self._running:
                    assert last is not None
                    return last
                if not self._running:
                    break
                self._cond.wait(self.timeout_s + 5)
            self._running = True
            self.sent += 1
        started = self.clock()
        try:
            evidence = self._send(started)
        finally:
            with self._cond:
                self._running = False
                self._cond.notify_all()
        with self._cond:
            self.last = evidence
        log.info("provider probe: %s: %s", evidence.kind, evidence.words)
        return evidence

    def _send(self, started: float) -> Evidence:
        try:
            probe = self.send(time.monotonic() + self.timeout_s)
        except Exception as exc:  # noqa: BLE001 - a probe that cannot run is no evidence
            log.exception("the provider probe failed to run")
            return Evidence(
                OK, f"the runner's own request could not be sent ({type(exc).__name__})", started, 0.0
            )
        return evidence_of(probe, self.model, started)


def agent_probe(environ: Mapping[str, str], model: str | None) -> ProviderProbe:
    """The probe of the agent's configured provider: the preflight's text request (probes.py), as the
    preflight sends it for this agent kind (a harness's wire, the built-in runtime's options)."""

    def send(deadline: float) -> Any:
        from ... import probes  # its HTTP stack on first use: no part of a run's start

        return probes.agent_text_probe(dict(environ), deadline, probes.scrub_for(environ))

    return ProviderProbe(send, model)


def experts_probe(
    provider: str, model: str | None, base_url: str, key: str | None, environ: Mapping[str, str]
) -> ProviderProbe:
    """The probe of Agent2Agent's expert agents' provider (their own, or the agent's)."""

    def send(deadline: float) -> Any:
        from ... import probes

        return probes.experts_text_probe(
            provider, model or "", base_url, key, deadline, probes.scrub_for(environ)
        )

    return ProviderProbe(send, model)
