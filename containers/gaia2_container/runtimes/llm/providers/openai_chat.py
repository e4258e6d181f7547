"""OpenAI Chat Completions, also spoken by OpenRouter, vLLM, Ollama, llama.cpp and others."""

from __future__ import annotations

import json
from typing import Any

from gaia2_contract import providers

from ..messages import Message, Reply, Tool, ToolCall, Usage
from .base import ProviderBase, new_call_id, parse_arguments


class ChatCompletionsProvider(ProviderBase):
    name = "openai"
    # OpenAI's own API wants max_completion_tokens (reasoning models reject max_tokens);
    # compatible servers mostly know only max_tokens.
    max_tokens_field = "max_completion_tokens"

    def __init__(self, settings, transport, name: str | None = None) -> None:
        super().__init__(settings, transport)
        if name:
            self.name = name
        if self.name != providers.OPENAI:
            self.max_tokens_field = "max_tokens"

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        if self.name == providers.OPENROUTER:
            headers["X-Title"] = "gaia2-runner"
        return headers

    def body(self, messages: list[Message], tools: list[Tool]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.settings.model, "messages": [to_wire(m) for m in messages]}
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
        body[self.max_tokens_field] = self.options.max_tokens
        if self.options.temperature is not None:
            body["temperature"] = self.options.temperature
        return self.with_extra(body)

    def complete(self, messages: list[Message], tools: list[Tool]) -> Reply:
        url = f"{self.settings.base_url}/chat/completions"
        return self.exchange(url, self.body(messages, tools), self.headers(), from_wire, tools)


def to_wire(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content}
    if m.role == "assistant":
        # "" never null: llama-cpp-python's server answers 500 to a null content (issue 20), and
        # OpenAI, vLLM, Ollama and llama-server accept "" next to tool_calls.
        out: dict[str, Any] = {"role": "assistant", "content": m.content or ""}
        if m.tool_calls:
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in m.tool_calls
            ]
        return out
    return {"role": m.role, "content": m.content}


def from_wire(data: dict[str, Any]) -> Reply:
    choice = (data.get("choices") or [{}])[0]
    msg = choice.get("message") or {}
    content = msg.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    calls = [
        ToolCall(
            c.get("id") or new_call_id(),
            c["function"]["name"],
            parse_arguments(c["function"].get("arguments")),
        )
        for c in msg.get("tool_calls") or []
        if c.get("function")
    ]
    return Reply(content or "", calls, usage_of(data), choice.get("finish_reason"))


def usage_of(data: dict[str, Any]) -> Usage:
    u = data.get("usage") or {}
    details = u.get("prompt_tokens_details") or {}
    return Usage(u.get("prompt_tokens"), u.get("completion_tokens"), details.get("cached_tokens"))
