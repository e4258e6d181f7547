"""The one shape every provider's response is normalised to, so templates never branch on format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..values import as_int, opt_str, pretty, text_of

MAX_WARNINGS = 20  # per call: a stream of 100,000 broken events must not make 100,000 lines


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
    earlier_messages: int = 0  # request messages left out: the previous call already had them
    unknown_tools: list[str] = field(default_factory=list)  # called but never offered (offered.py)


def _tool(call: Any) -> ToolCall:
    if not isinstance(call, ToolCall):
        return ToolCall("?", call)
    return ToolCall(opt_str(call.name) or "?", call.arguments, opt_str(call.id))


def tidy(call: LlmCall) -> LlmCall:
    """Every field the templates read, in its declared type, whatever the provider body held:
    one place instead of a type check at each of the parsers' many reads."""
    r = call.response
    r.text, r.format = text_of(r.text), text_of(r.format) or "unknown"
    r.reasoning = [text_of(x) for x in (r.reasoning if isinstance(r.reasoning, list) else [r.reasoning])]
    r.tool_calls = [_tool(c) for c in r.tool_calls]
    r.model, r.finish_reason, r.error = opt_str(r.model), opt_str(r.finish_reason), opt_str(r.error)
    u = r.usage
    u.input, u.output, u.cache_read, u.cache_write, u.reasoning = (
        as_int(u.input),
        as_int(u.output),
        as_int(u.cache_read),
        as_int(u.cache_write),
        as_int(u.reasoning),
    )
    r.warnings = [text_of(w) for w in r.warnings]
    if len(call.warnings) > MAX_WARNINGS:
        call.warnings[MAX_WARNINGS:] = [f"… and {len(call.warnings) - MAX_WARNINGS} more warnings"]
    for m in call.messages:
        m.role, m.text = opt_str(m.role) or "?", text_of(m.text)
        m.reasoning = [text_of(x) for x in m.reasoning]
        m.tool_calls = [_tool(c) for c in m.tool_calls]
        m.tool_result_for = opt_str(m.tool_result_for)
    call.model = opt_str(call.model)
    return call
