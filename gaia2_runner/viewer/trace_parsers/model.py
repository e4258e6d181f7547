"""The one shape every provider's response is normalised to, so templates never branch on format."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Usage:
    """Token counts. `input` counts every prompt token, cached ones included (OpenAI/Gemini style)."""

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    reasoning: int | None = None

    @property
    def known(self) -> bool:
        return self.input is not None or self.output is not None


@dataclass
class ToolCall:
    name: str
    arguments: Any = None  # parsed JSON when the provider sent valid JSON, else the raw string
    id: str | None = None

    @property
    def arguments_text(self) -> str:
        return pretty(self.arguments)


@dataclass
class ParsedResponse:
    """What the model answered, whatever the wire format."""

    format: str = "unknown"
    text: str = ""
    reasoning: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    finish_reason: str | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class Message:
    """One request message: text, the tool calls it made, or the tool result it carries."""

    role: str
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_result_for: str | None = None
    reasoning: list[str] = field(default_factory=list)


@dataclass
class LlmCall:
    """One trace.jsonl line, parsed. `raw_line` is kept only when the line could not be read."""

    seq: int | None = None
    timestamp: float | None = None
    url: str | None = None
    provider: str | None = None
    model: str | None = None
    latency_ms: float | None = None
    http_status: int | None = None
    attempts: int | None = None
    error: str | None = None
    messages: list[Message] = field(default_factory=list)
    tool_count: int = 0
    response: ParsedResponse = field(default_factory=ParsedResponse)
    raw_response: str | None = None
    raw_line: str | None = None
    warnings: list[str] = field(default_factory=list)


def pretty(value: Any) -> str:
    """JSON for display; strings stay as they are."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def loads_maybe(text: Any) -> Any:
    """Tool arguments arrive as JSON strings; keep the string when it is not JSON."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return text


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def add(*values: int | None) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None
