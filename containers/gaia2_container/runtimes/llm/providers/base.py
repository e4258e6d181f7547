"""What every provider implements, and helpers shared by their wire-format conversions."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from ..messages import Message, Reply, Tool
from ..settings import Settings
from ..text_calls import recognise
from ..transport import Poster


class Provider(Protocol):
    name: str

    def complete(self, messages: list[Message], tools: list[Tool]) -> Reply:
        """One model call: the conversation (system first) and the tools in, the model's turn out."""
        ...


class ProviderBase:
    name = "base"

    def __init__(self, settings: Settings, transport: Poster) -> None:
        self.settings = settings
        self.options = settings.options
        self.transport = transport

    def exchange(
        self,
        url: str,
        body: dict[str, Any],
        headers: dict[str, str],
        from_wire: Callable[[Any], Reply],
        tools: list[Tool],
    ) -> Reply:
        """One request; a reply without native tool calls is searched for calls written as text."""
        names = [t.name for t in tools]

        def read(data: Any) -> Reply:
            reply = from_wire(data)
            if not reply.tool_calls:
                reply.text_calls = recognise(reply.text, names)
            return reply

        return self.transport.post(url, body, headers, read)

    def with_extra(self, body: dict[str, Any]) -> dict[str, Any]:
        body.update(self.options.extra_body)
        return body


def split_system(messages: list[Message]) -> tuple[str, list[Message]]:
    """Providers with a top-level system field take the system messages out of the list."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    return system, [m for m in messages if m.role != "system"]


def alternating(
    messages: list[Message],
    role_of: Callable[[Message], str],
    parts_of: Callable[[Message], list[Any]],
    field: str,
) -> list[dict[str, Any]]:
    """Wire messages whose roles alternate (Anthropic's `content`, Gemini's `parts`): consecutive
    messages of one role become one, and a message with no parts is left out."""
    out: list[dict[str, Any]] = []
    for m in messages:
        role, parts = role_of(m), parts_of(m)
        if not parts:
            continue
        if out and out[-1]["role"] == role:
            out[-1][field].extend(parts)
        else:
            out.append({"role": role, field: parts})
    return out


def parse_arguments(text: Any) -> dict[str, Any]:
    """Tool arguments arrive as a JSON string (OpenAI) or object; a bad string is kept visible to the model."""
    if isinstance(text, dict):
        return text
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"__unparsed_arguments__": str(text)}
    return value if isinstance(value, dict) else {"__unparsed_arguments__": value}


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:16]


def own_raw(message: Message, provider: str) -> Any:
    return message.raw if message.raw_provider == provider else None
