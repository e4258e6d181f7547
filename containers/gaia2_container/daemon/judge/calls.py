"""Each call ARE's judge makes to its model: the prompt messages, the reply, the model, tokens,
duration and error, for the trace page's judge section (`judge_call` lines in events.jsonl in a
live run, `judge_calls` in rejudged.json when re-judging).

The engine build_judge_engine returns is wrapped: messages go in and the reply comes out unchanged,
an error is re-raised as it was, so the verdict stays ARE's. Texts are cut at the judge guard's cap
(the most agent text one check may send) and a run keeps at most MAX_CALLS calls. The engine never
holds its API key in what it records; the runner's scrubber still runs over everything extracted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ...jsonable import to_jsonable
from .guard import AGENT_TEXT_CAP
from .refusal import JudgeFault

MAX_CALLS = 100  # judge calls kept per run (or per re-judged run); later ones are only counted
ERROR_CHARS = 500  # characters of an error kept (the engine's own error line is cut there too)


def cut(text: Any, limit: int = AGENT_TEXT_CAP) -> str:
    """`text` as a string of at most `limit` characters, saying how much was cut."""
    data = text if isinstance(text, str) else str(to_jsonable(text))
    return data if len(data) <= limit else data[:limit] + f"… ({len(data) - limit} more characters)"


class JudgeCalls:
    """Calls recorded since the last `take()`; thread-safe (ARE may judge from several threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[dict[str, Any]] = []
        self._dropped = 0
        # The first configuration fault of the judge (refusal.JudgeFault): the daemon
        # publishes it as `judge_fault`, for the job to stop as for the agent's provider.
        self.fault: str | None = None

    def add(self, call: dict[str, Any]) -> None:
        with self._lock:
            if len(self._calls) < MAX_CALLS:
                self._calls.append(call)
            else:
                self._dropped += 1

    def take(self) -> list[dict[str, Any]]:
        """The calls kept; when some were dropped the last one says how many (`calls_dropped`)."""
        with self._lock:
            calls, dropped = self._calls, self._dropped
            self._calls, self._dropped = [], 0
        if dropped and calls:
            calls[-1] = {**calls[-1], "calls_dropped": dropped}
        return calls


class RecordedJudgeEngine:
    """ARE's judge engine protocol (`engine(messages, **kwargs) -> (text, metadata)`), recorded."""

    def __init__(
        self,
        engine: Callable[..., tuple[str, dict | None]],
        calls: JudgeCalls,
        model: str | None,
        step: Callable[[], str | None] = lambda: None,
    ) -> None:
        self.engine, self.calls, self.model, self.step = engine, calls, model, step

    def __call__(self, messages: list[dict[str, Any]], **kwargs: Any) -> tuple[str, dict | None]:
        started, wall = time.monotonic(), time.time()
        try:
            text, meta = self.engine(messages, **kwargs)
        except Exception as exc:
            self._record(messages, None, None, started, wall, f"{type(exc).__name__}: {exc}")
            if isinstance(exc, JudgeFault) and self.calls.fault is None:
                self.calls.fault = exc.reason
            raise
        self._record(messages, text, meta, started, wall, None)
        return text, meta

    def _record(
        self,
        messages: list[dict[str, Any]],
        text: str | None,
        meta: dict | None,
        started: float,
        wall: float,
        error: str | None,
    ) -> None:
        try:
            usage = meta or {}
            self.calls.add(
                {
                    "model": usage.get("model") or self.model,
                    "step": self.step(),
                    "started_at": round(wall, 3),
                    "duration_ms": round((time.monotonic() - started) * 1000),
                    "messages": [
                        {
                            "role": str(getattr(m.get("role"), "value", m.get("role"))),
                            "content": cut(m.get("content", "")),
                        }
                        for m in messages
                    ],
                    "response": None if text is None else cut(text),
                    "prompt_tokens": usage.get("prompt_tokens"),
                    "completion_tokens": usage.get("completion_tokens"),
                    "error": None if error is None else cut(" ".join(error.split()), ERROR_CHARS),
                }
            )
        except Exception:  # noqa: BLE001 - recording never changes what the judge gets
            pass
