"""OpenAI Responses API (`options.api = "responses"`): input items in, output items out.

An assistant turn is sent back as the output items it came with, so reasoning items stay next
to their function calls as the API requires.
"""

from __future__ import annotations

import json
from typing import Any

from ..messages import Message, Reply, Tool, ToolCall, Usage
from .base import ProviderBase, new_call_id, own_raw, parse_arguments, split_system


class ResponsesProvider(ProviderBase):
    name = "openai"

    def headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "Authorization": f"Bearer {self.settings.api_key}"}

    def body(self, messages: list[Message], tools: list[Tool]) -> dict[str, Any]:
        system, rest = split_system(messages)
        body: dict[str, Any] = {"model": self.settings.model, "input": to_items(rest, self.name)}
        if system:
            body["instructions"] = system
        if tools:
            body["tools"] = [
                {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
                for t in tools
            ]
        body["max_output_tokens"] = self.options.max_tokens
        if self.options.temperature is not None:
            body["temperature"] = self.options.temperature
        return self.with_extra(body)

    def complete(self, messages: list[Message], tools: list[Tool]) -> Reply:
        url = f"{self.settings.base_url}/responses"
        return self.exchange(url, self.body(messages, tools), self.headers(), from_wire, tools)


def to_items(messages: list[Message], provider: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            items.append({"type": "function_call_output", "call_id": m.tool_call_id, "output": m.content})
        elif m.role == "assistant":
            raw = own_raw(m, provider)
            if raw:
                items.extend(raw)
                continue
            if m.content:
                items.append({"role": "assistant", "content": m.content})
            for c in m.tool_calls:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": c.id,
                        "name": c.name,
                        "arguments": json.dumps(c.arguments),
                    }
                )
        else:
            items.append({"role": "user", "content": m.content})
    return items


def from_wire(data: dict[str, Any]) -> Reply:
    texts: list[str] = []
    calls: list[ToolCall] = []
    output = data.get("output") or []
    for item in output:
        kind = item.get("type")
        if kind == "message":
            texts.extend(
                p.get("text", "") for p in item.get("content") or [] if p.get("type") == "output_text"
            )
        elif kind == "function_call":
            calls.append(
                ToolCall(
                    item.get("call_id") or new_call_id(), item["name"], parse_arguments(item.get("arguments"))
                )
            )
    return Reply("".join(texts), calls, usage_of(data), data.get("status"), raw=output)


def usage_of(data: dict[str, Any]) -> Usage:
    u = data.get("usage") or {}
    details = u.get("input_tokens_details") or {}
    return Usage(u.get("input_tokens"), u.get("output_tokens"), details.get("cached_tokens"))
