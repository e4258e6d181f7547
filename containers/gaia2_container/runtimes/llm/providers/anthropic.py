"""Anthropic Messages API: top-level system, content blocks, tool_use / tool_result pairs."""

from __future__ import annotations

from typing import Any

from ..messages import Message, Reply, Tool, ToolCall, Usage
from .base import ProviderBase, alternating, own_raw, split_system


class AnthropicProvider(ProviderBase):
    name = "anthropic"

    def headers(self) -> dict[str, str]:
        return {
            "Content-Type": "application/json",
            "x-api-key": self.settings.api_key or "",
            "anthropic-version": self.options.anthropic_version,
        }

    def body(self, messages: list[Message], tools: list[Tool]) -> dict[str, Any]:
        system, rest = split_system(messages)
        body: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": self.options.max_tokens,
            "messages": to_wire(rest, self.name),
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
            ]
        if self.options.temperature is not None:
            body["temperature"] = self.options.temperature
        return self.with_extra(body)

    def complete(self, messages: list[Message], tools: list[Tool]) -> Reply:
        url = f"{self.settings.base_url}/messages"
        return self.exchange(url, self.body(messages, tools), self.headers(), from_wire, tools)


def _blocks(m: Message, provider: str) -> list[dict[str, Any]]:
    if m.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": m.tool_call_id,
                "content": m.content or "(empty)",
                "is_error": m.is_error,
            }
        ]
    if m.role == "assistant":
        raw = own_raw(m, provider)
        if raw:
            return list(raw)
        blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in m.tool_calls
        ]
        return blocks
    return [{"type": "text", "text": m.content or "(empty)"}]


def to_wire(messages: list[Message], provider: str) -> list[dict[str, Any]]:
    """Consecutive entries of the same role become one message, since roles must alternate."""
    return alternating(
        messages,
        lambda m: "assistant" if m.role == "assistant" else "user",
        lambda m: _blocks(m, provider),
        "content",
    )


def from_wire(data: dict[str, Any]) -> Reply:
    content = data.get("content") or []
    text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
    calls = [
        ToolCall(b["id"], b["name"], b.get("input") or {}) for b in content if b.get("type") == "tool_use"
    ]
    return Reply(text, calls, usage_of(data), data.get("stop_reason"), raw=content)


def usage_of(data: dict[str, Any]) -> Usage:
    u = data.get("usage") or {}
    return Usage(u.get("input_tokens"), u.get("output_tokens"), u.get("cache_read_input_tokens"))
