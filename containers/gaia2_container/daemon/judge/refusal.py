"""A judge call that failed: the provider refusing the agent's text, or the runner's judge broken?

An agent chooses the text a soft check sends to the judge, so it can choose text the judge's
provider refuses (an Azure-style `content_filter` 400, a 400 about the messages' content). Were
that an infrastructure error, a wrong answer with a trigger word would buy a rerun (`--retry`)
where the same answer without it fails. The provider's words cannot tell the two apart (a 400's
text may echo the agent's), so the runner decides by its own evidence: right after the failure
it sends the judge the preflight's minimal probe (check.check_judge: the run's own judge
model, endpoint and key, a prompt of the runner's: check.probe_judge).

- The probe is answered and the failed request carried the agent's text (the judge guard's fence
  in its last message) and was refused as a request (REFUSAL_STATUSES, or an empty reply the
  provider marked `content_filter`): the provider refused the agent's text. The soft check gets a
  reply naming the refusal and carrying only ARE's failure markers, so ARE's own checker fails it
  and the run is judged as usual; the judge trace gives the reason (trace.py).
- The probe is refused too (the key, payment or quota, the model or endpoint, any other 4xx but a
  rate limit): the judge is misconfigured. A JudgeFault, an infrastructure error saying
  "configuration fault: …"; the first one's reason is kept on the run's JudgeCalls (`fault`).
- Anything else (an outage: a 5xx, a rate limit, no answer; a refusal of a request without the
  agent's text, whose text is the runner's and the scenario's): the infrastructure error stays.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..provider.faults import CONFIGURATION, CONTEXT
from ..provider.probe import configuration_words, kind_of
from .guard import AGENT_TEXT_OPEN, neutralise

REFUSED = "the judge's provider refused to judge the agent's text"
# HTTP statuses of a request the provider read and refused for what it says (not who sent it).
REFUSAL_STATUSES = frozenset({400, 413, 422})
CONTENT_FILTER = "content_filter"  # OpenAI/Azure finish_reason of a reply the filter withheld
# ARE's failure markers (LLMChecker's failure_str: [[Failure]] for content checks, [[False]] for
# the others); the reply has no success marker, so every checker reads a failed check.
FAILURE_MARKERS = "[[Failure]] [[False]]"
PROBE_BUDGET_S = 30.0
WORDS_CHARS = 300

_last = threading.local()  # the refusal of the soft check running in this thread, for the trace


class JudgeFault(RuntimeError):
    """The runner's own judge request was refused (key, payment/quota, model): a configuration fault."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class ProbeResult:
    ok: bool
    status: int | None
    detail: str


def carries_agent_text(messages: list[dict[str, Any]]) -> bool:
    """Whether the request's own question (its last message, not ARE's few-shot examples, which
    the guard fences too) holds the agent's text: only then can a refusal be the agent's doing."""
    last = messages[-1] if messages else {}
    content = last.get("content") if isinstance(last, dict) else None
    return isinstance(content, str) and AGENT_TEXT_OPEN in content


def refusal_reply(words: str) -> str:
    """The soft check's reply for a refused agent text: the provider's words (no marker of ARE's
    can survive in them) and ARE's failure markers."""
    return f"{REFUSED}: {neutralise(_short(words))}\n{FAILURE_MARKERS}"


def note_refusal(words: str) -> None:
    _last.words = neutralise(_short(words))


def take_refusal() -> str | None:
    """The refusal noted in this thread since the last call (judge_trace reads it per check)."""
    words = getattr(_last, "words", None)
    _last.words = None
    return words


def fault_of(probe: ProbeResult) -> str | None:
    """Why a failed probe shows the judge misconfigured, else None: no answer, a 5xx or a rate limit
    is the judge being down or busy (an infrastructure error, no fault). Any other refusal of the
    runner's own minimal request is its configuration's (provider/probe.py owns that rule and its
    words, the agent's and the experts' probes use the same)."""
    if (
        probe.ok
        or kind_of(probe.status, None if probe.status is not None else "connect", probe.detail)
        != CONFIGURATION
    ):
        return None
    return configuration_words(
        probe.status or 0,
        _short(probe.detail),
        f"HTTP {probe.status}",
        None,
        whose="the judge's provider",
        key="the configured judge API key",
        settings="the judge's base URL and model",
    )


class RefusalCheck:
    """Decides, for one failed judge call, between a refused agent text and a runner fault."""

    def __init__(
        self, env: Mapping[str, str], probe: Callable[[Mapping[str, str]], ProbeResult | None]
    ) -> None:
        """`probe`: check.probe_judge in the daemon (the engine wires it; a test may pass its own)."""
        self.env, self.probe = dict(env), probe

    def after_failure(
        self,
        messages: list[dict[str, Any]],
        status: int | None,
        words: str,
        error: Exception,
        filtered: bool = False,
    ) -> str:
        """The reply for a refused agent text; else raises `error` (a JudgeFault when the probe shows
        the configuration at fault). `filtered`: an empty reply the provider marked content_filter."""
        try:
            probe = self.probe(self.env)
        except Exception:  # noqa: BLE001 - no evidence: the call's own error stands
            probe = None
        if probe is not None and probe.ok:
            # A context overflow is the judge being too small for the capped text: its own, not the agent's.
            if (
                (filtered or status in REFUSAL_STATUSES)
                and carries_agent_text(messages)
                and not CONTEXT.search(words)
            ):
                note_refusal(words)
                return refusal_reply(words)
            raise error
        reason = fault_of(probe) if probe is not None else None
        if reason is not None:
            raise JudgeFault(
                f"configuration fault: {reason} (the judge's probe after: {error})", reason
            ) from None
        if probe is not None:
            raise type(error)(
                f"{error}; the judge's probe failed too (HTTP {probe.status or '-'}: {_short(probe.detail)})"
            ) from None
        raise error


def _short(text: str) -> str:
    said = " ".join(str(text).split())
    return said if len(said) <= WORDS_CHARS else said[:WORDS_CHARS] + "…"
