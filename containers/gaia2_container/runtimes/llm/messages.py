"""The provider-neutral conversation: every provider converts to and from these types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .text_calls import TextCalls

Role = Literal["system", "user", "assistant", "tool"]


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Message:
    """One conversation entry.

    `raw` keeps a provider's own form of an assistant turn (Gemini thought signatures, Responses
    reasoning items, Anthropic thinking blocks) so it can be sent back unchanged; `raw_provider`
    says whose form it is, so another provider ignores it.
    """

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None  # role "tool": the call this result answers
    # role "tool": the tool's name (Gemini needs it); role "user": set when the message carries the
    # result of a call the model wrote as text (context trimming treats it as a tool result)
    name: str | None = None
    is_error: bool = False  # role "tool": the tool raised
    raw: Any = None
    raw_provider: str | None = None


@dataclass
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None

    def to_dict(self) -> dict[str, int | None]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
        }


@dataclass
class Reply:
    """What the model said: free text, tool calls, or both."""

    text: str
    tool_calls: list[ToolCall]
    usage: Usage
    stop_reason: str | None = None
    raw: Any = None
    text_calls: TextCalls = field(default_factory=TextCalls)  # calls written in `text` (text_calls.py)

    def trace_fields(self) -> dict[str, Any]:
        """What the trace line adds about this reply: the calls recognised in its text."""
        return {"text_tool_calls": self.text_calls.trace_entries()} if self.text_calls else {}

    def as_message(self, provider: str) -> Message:
        return Message("assistant", self.text, list(self.tool_calls), raw=self.raw, raw_provider=provider)


@dataclass(frozen=True)
class Tool:
    """A tool as the model sees it: name, description and an OpenAI-style JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]
