"""Tokens one model answer used, read by the relay from the body it passed on (JSON or an SSE
stream) in every wire format the runner speaks: OpenAI Chat Completions and Responses, Anthropic
Messages, Gemini. It feeds the per-scenario token budget (--max-tokens) and the job's cost.

Streams report usage once at the end (OpenAI Chat Completions: the final chunk with empty
`choices`, which the relay asks for by adding `stream_options.include_usage`; Responses:
`response.completed`) or cumulatively (Anthropic's message_start and message_delta, Gemini's
chunks, SSE or a JSON array), so the largest count seen for each side is the answer's.

`reservation` is what a call may use at most, as the budget holds it while the call is in flight
(ledger.py): its output limit (or DEFAULT_MAX_OUTPUT_TOKENS) times the choices asked for,
plus its prompt estimated from the body's size. An answer that reports no usage (a provider that
ignores include_usage, a stream the agent cut) is charged that estimate by the ledger, never zero:
otherwise an agent could spend past --max-tokens with answers that do not say what they cost.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# (input, output, cached input) key names per format; Anthropic's cached reads come on top of input.
_OPENAI_CHAT = ("prompt_tokens", "completion_tokens")
_RESPONSES_OR_ANTHROPIC = ("input_tokens", "output_tokens")
_GEMINI = ("promptTokenCount", "candidatesTokenCount")
_ANTHROPIC_CACHE = ("cache_read_input_tokens", "cache_creation_input_tokens")
# The output a call may produce when it names no limit (the providers' own defaults run from 4096
# to the whole context): reserved while it runs, charged when its answer reports no usage.
DEFAULT_MAX_OUTPUT_TOKENS = 4096
PROMPT_BYTES_PER_TOKEN = 4  # the usual estimate for text; the answer's usage replaces it
# A call's output limit, in every wire format: Chat Completions, Responses, Anthropic at the top of
# the body, Gemini in generationConfig (protobuf JSON also takes the snake_case names).
_OUTPUT_LIMITS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
_GEMINI_CONFIGS = ("generationConfig", "generation_config")
_GEMINI_LIMITS = ("maxOutputTokens", "max_output_tokens")
_CHOICES = ("n",)  # Chat Completions; Gemini's candidateCount below
_GEMINI_CHOICES = ("candidateCount", "candidate_count")


@dataclass
class Tokens:
    input: int = 0  # the whole prompt, cached part included (TRACE_FORMAT.md)
    output: int = 0
    cached: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output

    def add(self, other: Tokens) -> None:
        self.input += other.input
        self.output += other.output
        self.cached += other.cached

    def at_least(self, other: Tokens) -> Tokens:
        """Each side the larger of the two (a cut answer's usage, and its reservation)."""
        return Tokens(
            max(self.input, other.input), max(self.output, other.output), max(self.cached, other.cached)
        )


def reservation(body: Any, size: int) -> Tokens:
    """At most what a model call with this (parsed) `body` of `size` bytes may use: its prompt
    estimated from the size, its output limit times the choices it asks for. A limit that is not
    a positive integer counts as DEFAULT_MAX_OUTPUT_TOKENS (the provider may read it otherwise)."""
    doc = body if isinstance(body, dict) else {}
    configs: list[dict[str, Any]] = [doc[key] for key in _GEMINI_CONFIGS if isinstance(doc.get(key), dict)]
    limits = [doc[key] for key in _OUTPUT_LIMITS if key in doc]
    limits += [config[key] for config in configs for key in _GEMINI_LIMITS if key in config]
    choices = [doc[key] for key in _CHOICES if key in doc]
    choices += [config[key] for config in configs for key in _GEMINI_CHOICES if key in config]
    output = max(
        (_number(value) or DEFAULT_MAX_OUTPUT_TOKENS for value in limits), default=DEFAULT_MAX_OUTPUT_TOKENS
    )
    many = max((_number(value) or 1 for value in choices), default=1)
    return Tokens(input=max(size, 0) // PROMPT_BYTES_PER_TOKEN, output=output * many)


def tokens_of(body: bytes) -> Tokens:
    """The usage an answer reports (zero when it reports none: the ledger then charges the call's
    reservation)."""
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
            cached = max(
                cached,
                _number(usage.get("cachedContentTokenCount")),
                _number(usage.get("cache_read_input_tokens")),
            )
            found.input = max(found.input, _number(usage.get(input_key)) + cache)
            found.output = max(found.output, _number(usage.get(output_key)))
            found.cached = max(found.cached, cached)
            return
