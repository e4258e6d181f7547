"""HTTP to the model: JSON POST with retries on 429/5xx/timeouts, and one trace line per call.

Retries back off exponentially and honour Retry-After (seconds or an HTTP date), because rate
limits are the normal state of a benchmark run, not an error. Anything else fails at once. Under
a scenario limit one call with its retries ends within the call window (budget.py): an attempt
never waits past it, and after a timeout the request is sent again only when a whole attempt still
fits (a slow one-slot server still computing the first must not be asked twice).
"""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from ... import budget
from .messages import Reply
from .trace import Redactor, TraceWriter, public_url

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


class ProviderError(Exception):
    """The model could not be reached or refused for good: the runtime stops with exit code 3."""


@dataclass
class RetryPolicy:
    max_retries: int = 4
    base_s: float = 1.0
    max_s: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_s)
        backoff = self.base_s * (2**attempt)
        return min(backoff * (1 + random.random() * 0.1), self.max_s)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Poster(Protocol):
    """What a provider needs of its transport: Transport here, the probes' one-shot (probes.OneShot)."""

    def post(
        self, url: str, body: dict[str, Any], headers: dict[str, str], read: Callable[[Any], Reply]
    ) -> Reply: ...


class Transport:
    def __init__(
        self,
        trace: TraceWriter,
        redact: Redactor,
        timeout_s: float,
        retry: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        shown: tuple[str, str] | None = None,
        limit_s: float | None = None,
    ) -> None:
        """`limit_s`: the scenario's time limit (None: none), which bounds one call with its retries."""
        self.trace = trace
        self.timeout_s = timeout_s
        self.limit_s = limit_s
        self.window_s = budget.call_window(limit_s)
        self.first_answer_s: float | None = None  # how long the model took to give its first answer
        # (called base, shown base): requests go through the daemon's model relay, but traces and
        # messages name the provider the relay forwards to.
        self.shown = shown
        self.redact = redact
        self.retry = retry
        self.sleep = sleep
        self.client = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 30.0)))

    def post(
        self, url: str, body: dict[str, Any], headers: dict[str, str], read: Callable[[Any], Reply]
    ) -> Reply:
        """POST `body` as JSON and return `read` of the JSON answer; raise ProviderError when it fails for good.

        `read` runs before the trace line is written, so the line carries what was read from the
        answer (usage, tool calls recognised in its text), and a body `read` cannot make sense of
        is a provider error, not a crash of the loop."""
        started = time.time()
        t0 = time.perf_counter()
        deadline = None if self.window_s is None else t0 + self.window_s
        attempt = 0
        while True:
            wait = self.timeout_s if deadline is None else min(self.timeout_s, deadline - time.perf_counter())
            sent = time.perf_counter()
            status, text, problem, retry_after, timed_out = self._attempt(url, body, headers, wait)
            if problem is None and self.first_answer_s is None:
                self.first_answer_s = time.perf_counter() - sent
            retryable = status is None or status in RETRY_STATUSES or (status is not None and status >= 500)
            if problem is None or not retryable or attempt >= self.retry.max_retries:
                break
            delay = self.retry.delay(attempt, retry_after)
            if deadline is not None and not budget.retry_fits(
                timed_out, deadline - time.perf_counter() - delay, self.timeout_s
            ):
                break
            self.sleep(delay)
            attempt += 1
        latency_ms = (time.perf_counter() - t0) * 1000
        reply: Reply | None = None
        if problem is None:
            try:
                reply = read(json.loads(text))
            except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
                problem = (
                    f"unreadable response from {public_url(self._shown(url))}: {type(exc).__name__}: {exc}"
                )
        self.trace.record(
            url=self._shown(url),
            started=started,
            latency_ms=latency_ms,
            http_status=status,
            request=body,
            raw_response=text,
            usage=reply.usage.to_dict() if reply else None,
            attempts=attempt + 1,
            error=problem,
            extra=reply.trace_fields() if reply else None,
        )
        if problem is not None:
            if attempt:  # "HTTP 503 from URL after 3 attempts: body", the detail last
                head, sep, detail = problem.partition(": ")
                problem = f"{head} after {attempt + 1} attempts{sep}{detail}"
            if timed_out:  # how long it waited, and what a limit that fits this model would be
                problem += f" (waited {wait:.0f}s): {budget.slow_model_note(self.first_answer_s, wait, self.limit_s)}"
            raise ProviderError(self.redact(problem))
        assert reply is not None
        return reply

    def _attempt(
        self, url: str, body: dict[str, Any], headers: dict[str, str], wait_s: float
    ) -> tuple[int | None, str, str | None, float | None, bool]:
        """One request waiting at most `wait_s`: (status, body text, problem or None, Retry-After
        seconds, whether it timed out)."""
        wait_s = max(wait_s, 0.001)
        try:
            resp = self.client.post(
                url, json=body, headers=headers, timeout=httpx.Timeout(wait_s, connect=min(wait_s, 30.0))
            )
        except httpx.TimeoutException:
            return None, "", f"timeout calling {public_url(self._shown(url))}", None, True
        except httpx.HTTPError as exc:
            return (
                None,
                "",
                f"cannot reach {public_url(self._shown(url))}: {type(exc).__name__}: {exc}",
                None,
                False,
            )
        text = resp.text
        if 200 <= resp.status_code < 300:
            return resp.status_code, text, None, None, False
        snippet = " ".join(text.split())[:300]
        problem = f"HTTP {resp.status_code} from {public_url(self._shown(url))}" + (
            f": {snippet}" if snippet else ""
        )
        return resp.status_code, text, problem, parse_retry_after(resp.headers.get("retry-after")), False

    def _shown(self, url: str) -> str:
        if self.shown and url.startswith(self.shown[0]):
            return self.shown[1] + url[len(self.shown[0]) :]
        return url

    def close(self) -> None:
        self.client.close()
