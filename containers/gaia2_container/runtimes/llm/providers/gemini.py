"""Google AI Studio generateContent: `contents` of user/model parts, functionDeclarations as tools."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ..messages import Message, Reply, Tool, ToolCall, Usage
from .base import ProviderBase, alternating, new_call_id, own_raw, split_system

# Gemini accepts an OpenAPI subset; these schema keys make it reject the whole request.
_DROP_KEYS = frozenset({"additionalProperties", "$schema", "default", "examples", "title"})


class GeminiProvider(ProviderBase):
    name = "gemini"

    def headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "x-goog-api-key": self.settings.api_key or ""}

    def body(self, messages: list[Message], tools: list[Tool]) -> dict[str, Any]:
        system, rest = split_system(messages)
        body: dict[str, Any] = {"contents": to_wire(rest, self.name)}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        if tools:
            body["tools"] = [
                {
                    "functionDeclarations": [
                        {
                            "name": t.name,
                            "description": t.description,
                            "parameters": clean_schema(t.parameters),
                        }
                        for t in tools
                    ]
                }
            ]
        config: dict[str, Any] = {"maxOutputTokens": self.options.max_tokens}
        if self.options.temperature is not None:
            config["temperature"] = self.options.temperature
        body["generationConfig"] = config
        return self.with_extra(body)

    def complete(self, messages: list[Message], tools: list[Tool]) -> Reply:
        model = self.settings.model.removeprefix("models/")
        url = f"{self.settings.base_url}/models/{quote(model, safe='-._')}:generateContent"
        return self.exchange(url, self.body(messages, tools), self.headers(), from_wire, tools)


def clean_schema(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: clean_schema(v) for k, v in schema.items() if k not in _DROP_KEYS}
        if out.get("type") == "array" and not out.get("items"):
            out["items"] = {"type": "string"}
        if out.get("type") == "object" and out.get("properties") == {}:
            out.pop("properties")
            out.pop("required", None)
        return out
    if isinstance(schema, list):
        return [clean_schema(v) for v in schema]
    return schema


def _parts(m: Message, provider: str) -> list[dict[str, Any]]:
    if m.role == "tool":
        key = "error" if m.is_error else "result"
        response: dict[str, Any] = {"name": m.name or "", "response": {key: m.content}}
        if m.tool_call_id and not m.tool_call_id.startswith("call_"):
            response["id"] = m.tool_call_id  # an id Gemini gave us: echo it
        return [{"functionResponse": response}]
    if m.role == "assistant":
        raw = own_raw(m, provider)
        if raw:
            return list(raw)  # keeps thoughtSignature parts, which Gemini requires back
        parts: list[dict[str, Any]] = [{"text": m.content}] if m.content else []
        parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for c in m.tool_calls]
        return parts
    return [{"text": m.content or "(empty)"}]


def to_wire(messages: list[Message], provider: str) -> list[dict[str, Any]]:
    return alternating(
        messages,
        lambda m: "model" if m.role == "assistant" else "user",
        lambda m: _parts(m, provider),
        "parts",
    )


def from_wire(data: dict[str, Any]) -> Reply:
    candidate = (data.get("candidates") or [{}])[0]
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(p.get("text", "") for p in parts if "text" in p and not p.get("thought"))
    calls = [
        ToolCall(
            p["functionCall"].get("id") or new_call_id(),
            p["functionCall"]["name"],
            p["functionCall"].get("args") or {},
        )
        for p in parts
        if "functionCall" in p
    ]
    return Reply(text, calls, usage_of(data), candidate.get("finishReason"), raw=parts)


def usage_of(data: dict[str, Any]) -> Usage:
    u = data.get("usageMetadata") or {}
    output = u.get("candidatesTokenCount")
    if output is not None and u.get("thoughtsTokenCount"):
        output += u["thoughtsTokenCount"]
    return Usage(u.get("promptTokenCount"), output, u.get("cachedContentTokenCount"))
