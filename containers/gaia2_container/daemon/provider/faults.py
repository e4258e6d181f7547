"""What one answer of the agent's model provider means for the run: the one owner of that
classification (the relay's ledger, ledger.py, acts on it).

A provider or configuration fault must never be scored as the model's failure, and the agent must
never be able to fake one to turn a run it is failing into an infrastructure error (and a second
try under --retry). So a *configuration fault* counts only for requests whose fault-relevant parts
the runner's configuration decided, not the agent: an API path of the configured endpoint
(API_PATH), the configured model in the body (or a Gemini path), and for auth the run's placeholder,
for which the relay sent the configured key (relay/key.py). Only answers to model calls (paths.py)
say anything about the provider's availability: a 5xx of a model list is no outage. The agent still
chooses everything else; what it provokes stays its own (docs/reference/container-contract.md, "Model relay",
says what this leaves open).

Kinds:
- configuration: auth refused (401/403) for the run's placeholder (the configured key), payment or quota refused, the
  configured model unknown (a 404 with a model-not-found message, or a 404 to the run's first
  request). Never a 400: its text may echo what the agent sent; a refused parameter of the
  runner's is the preflight's to find. The run ends at once as an infrastructure error (unless it
  is already being judged) and the job stops.
- rate_limit (429), server_error (408, 5xx), unanswered (no HTTP answer: timeout, refused
  connection): the provider's availability. Retried by the agents; the job lowers its concurrency
  while they last; at the end of a run they make it an infrastructure error (the relay's witness).
- context_overflow: the conversation no longer fits the model: the agent's failure, with that reason.
- agent: any other refusal (the agent's own malformed request).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .paths import API_PATH, GEMINI_PATH, is_model_call, plain_path

OK = "ok"
CONFIGURATION = "configuration"
RATE_LIMIT = "rate_limit"
SERVER_ERROR = "server_error"
UNANSWERED = "unanswered"
CONTEXT_OVERFLOW = "context_overflow"
AGENT = "agent"

# The provider's availability (the relay's witness of an outage; load on the provider for the job).
UNAVAILABLE_KINDS = frozenset({RATE_LIMIT, SERVER_ERROR, UNANSWERED})
RATE_LIMITED = frozenset({429})
SERVER_STATUSES = frozenset({408, 500, 502, 503, 504, 520, 521, 522, 524, 529})
UNAVAILABLE_STATUSES = RATE_LIMITED | SERVER_STATUSES
AUTH_STATUSES = frozenset({401, 403})
PAYMENT_STATUS = 402
NOT_FOUND = 404

MODEL_NOT_FOUND = re.compile(
    r"model_not_found|(?:unknown|invalid|no such)[ _]model|not a valid model"
    r"|\bmodels?\b[^.\n]{0,80}?\b(?:not found|does not exist|doesn't exist|is not available|not supported)",
    re.IGNORECASE,
)
ANTHROPIC_NOT_FOUND = re.compile(r"not_found_error.{0,80}model", re.IGNORECASE | re.DOTALL)
QUOTA = re.compile(
    r"insufficient_quota|exceeded your current quota|credit balance is too low|insufficient credits",
    re.IGNORECASE,
)
CONTEXT = re.compile(
    r"context_length_exceeded|context[ _-]?(?:length|window|size)|maximum context|prompt is too long"
    r"|too many (?:input )?tokens|input is too long|reduce the length of the messages",
    re.IGNORECASE,
)
MESSAGE_CHARS = 300


@dataclass(frozen=True)
class RunnerSetup:
    """What the runner configured for the agent's provider (from the daemon's environment)."""

    model: str | None = None
    # What the agent holds for the key: the run's placeholder, which the relay swaps for the
    # configured key (relay/key.py). A refusal of it is a refusal of the configured key.
    agent_key: str | None = None
    keyless: bool = False  # the endpoint has no key (the relay drops the placeholder)
    keyless_placeholders: frozenset[str] = frozenset()  # what harnesses send to a keyless endpoint


@dataclass(frozen=True)
class Request:
    """The fault-relevant facts of one request as the agent sent it."""

    path: str  # below the configured endpoint, query included
    body: Any  # parsed JSON, or None
    credentials: tuple[str, ...] = ()  # values of the credential headers and of a `key` query parameter

    @property
    def bare_path(self) -> str:
        """The path as the provider reads it (no query, percent-decoded: relay_paths.plain_path)."""
        return plain_path(self.path)

    def model(self) -> str | None:
        if isinstance(self.body, dict) and isinstance(self.body.get("model"), str):
            return self.body["model"]
        match = GEMINI_PATH.match(self.bare_path)
        return match.group(1) if match else None


@dataclass(frozen=True)
class Verdict:
    kind: str
    reason: str | None = None  # for configuration faults and context overflows: what to tell the user


def classify(
    setup: RunnerSetup, request: Request, status: int | None, body: str, answered_before: bool, url: str = ""
) -> Verdict:
    """The kind of one outcome. `status` None: no HTTP answer; `body` the (start of the) answer;
    `answered_before`: the provider already answered a request of this run with success."""
    if status is not None and 200 <= status < 300:
        return Verdict(OK)
    # Only a model call's failure tells of the provider's availability: a model list or a token
    # count failing is the agent's business (paths.py).
    call = is_model_call(request.path)
    if status is None:
        return Verdict(UNANSWERED if call else AGENT)
    message = error_message(body)
    ours = runner_determined(setup, request)
    where = f"HTTP {status} from {url or request.bare_path}"
    if ours and status in AUTH_STATUSES and carries_configured_key(setup, request):
        return Verdict(CONFIGURATION, f"the provider refused the configured API key ({where}: {message})")
    if ours and (status == PAYMENT_STATUS or (status in RATE_LIMITED | {403} and QUOTA.search(body))):
        return Verdict(CONFIGURATION, f"the provider refused for payment or quota ({where}: {message})")
    if call and (status in UNAVAILABLE_STATUSES or status >= 500):
        return Verdict(RATE_LIMIT if status in RATE_LIMITED else SERVER_ERROR)
    if CONTEXT.search(body):
        return Verdict(
            CONTEXT_OVERFLOW, f"the conversation no longer fits the model's context ({where}: {message})"
        )
    # Only a 404 says "no such model": a 400 may echo whatever the agent put in its request
    # ("Unrecognized request argument supplied: model_not_found"), so its text proves nothing. A
    # refused parameter of the runner's is the preflight's to find, before the job starts.
    if ours and status == NOT_FOUND and (MODEL_NOT_FOUND.search(body) or ANTHROPIC_NOT_FOUND.search(body)):
        return Verdict(
            CONFIGURATION, f"the provider does not know the model {setup.model!r} ({where}: {message})"
        )
    if ours and status == NOT_FOUND and not answered_before:
        return Verdict(
            CONFIGURATION,
            f"the endpoint answered 404 to the run's first request: check the base "
            f"URL and the model {setup.model!r} ({where}: {message})",
        )
    return Verdict(AGENT)


def runner_determined(setup: RunnerSetup, request: Request) -> bool:
    """An API path of the configured endpoint carrying the configured model: a refusal of it is a
    verdict on the runner's configuration, not on something the agent chose."""
    if not setup.model or request.model() != setup.model:
        return False
    return bool(API_PATH.match(request.bare_path) or GEMINI_PATH.match(request.bare_path))


def carries_configured_key(setup: RunnerSetup, request: Request) -> bool:
    """Whether the request authenticated as the runner configured: with the run's placeholder
    (the relay sent the configured key for it), or, for a keyless endpoint, with no key (or a
    placeholder). A key the agent made up is its own business."""
    sent = {_bare_credential(value) for value in request.credentials if value.strip()}
    if not setup.keyless:
        # Every credential it carries: a made-up one beside the placeholder (a header the provider
        # reads first, a `key` query parameter it ignores) makes the refusal the agent's doing.
        return setup.agent_key is not None and sent == {setup.agent_key}
    return sent <= set(setup.keyless_placeholders) | ({setup.agent_key} if setup.agent_key else set())


def _bare_credential(value: str) -> str:
    scheme, _, rest = value.strip().partition(" ")
    return rest.strip() if scheme.lower() == "bearer" and rest else value.strip()


def error_message(body: str) -> str:
    """The provider's own message (`error.message`, `message`, `error` as text), else the body, short."""
    text = body.strip()
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        error = doc.get("error")
        for candidate in (
            (error or {}).get("message") if isinstance(error, dict) else error,
            doc.get("message"),
            doc.get("detail"),
        ):
            if isinstance(candidate, str) and candidate.strip():
                text = candidate
                break
    text = " ".join(text.split())
    return (text[:MESSAGE_CHARS] + "…") if len(text) > MESSAGE_CHARS else (text or "no message")
