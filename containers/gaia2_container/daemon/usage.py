"""Tokens one model answer used, read by the relay from the body it passed on (JSON or an SSE
stream) in every wire format the runner speaks: OpenAI Chat Completions and Responses, Anthropic
Messages, Gemini. It feeds the per-scenario token budget (--max-tokens) and the job's cost.

Streams report usage once at the end (OpenAI) or cumulatively (Anthropic's message_delta,
Gemini's chunks), so the largest count seen for each side is the answer's. An answer without
usage counts as zero: the provider did not say, and guessing would charge the agent for nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator

# (input, output, cached input) key names per format; Anthropic's cached reads come on top of input.
_OPENAI_CHAT = ("prompt_tokens", "completion_tokens")
_RESPONSES_OR_ANTHROPIC = ("input_tokens", "output_tokens")
_GEMINI = ("promptTokenCount", "candidatesTokenCount")
_ANTHROPIC_CACHE = ("cache_read_input_tokens", "cache_creation_input_tokens")


@dataclass
class Tokens:
    input: int = 0  # the whole prompt, cached part included (TRACE_FORMAT.md)
    output: int = 0
    cached: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output

    def add(self, other: "Tokens") -> None:
        self.input += other.input
        self.output += other.output
        self.cached += other.cached


def tokens_of(body: bytes) -> Tokens:
    """The usage an answer reports (zero when it reports none)."""
    found = Tokens()
    for doc in _documents(body):
        for usage in _usages(doc):
            _merge(found, usage)
    return found


def _documents(body: bytes) -> Iterator[Any]:
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return
    if text[0] in "{[":
        try:
            yield json.loads(text)
            return
        except ValueError:
            pass
    for line in text.splitlines():  # server-sent events: `data: {...}`
        line = line.strip()
        if line.startswith("data:"):
            try:
                yield json.loads(line[5:].strip())
            except ValueError:
                continue


def _usages(doc: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every usage object in a document: `usage` and `usageMetadata`, at the top or one level down
    (`message.usage` of Anthropic's message_start, `response.usage` of Responses events)."""
    if depth > 2:
        return
    if isinstance(doc, list):
        for item in doc:
            yield from _usages(item, depth + 1)
        return
    if not isinstance(doc, dict):
        return
    for key in ("usage", "usageMetadata"):
        if isinstance(doc.get(key), dict):
            yield doc[key]
    for key in ("message", "response"):
        if isinstance(doc.get(key), dict):
            yield from _usages(doc[key], depth + 1)


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _merge(found: Tokens, usage: dict[str, Any]) -> None:
    for input_key, output_key in (_OPENAI_CHAT, _RESPONSES_OR_ANTHROPIC, _GEMINI):
        if input_key in usage or output_key in usage:
            cache = sum(_number(usage.get(k)) for k in _ANTHROPIC_CACHE) if input_key == "input_tokens" else 0
            details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
            cached = _number(details.get("cached_tokens")) if isinstance(details, dict) else 0
            cached = max(cached, _number(usage.get("cachedContentTokenCount")), _number(usage.get("cache_read_input_tokens")))
            found.input = max(found.input, _number(usage.get(input_key)) + cache)
            found.output = max(found.output, _number(usage.get(output_key)))
            found.cached = max(found.cached, cached)
            return
