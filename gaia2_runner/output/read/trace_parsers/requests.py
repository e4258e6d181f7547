"""Request bodies to a list of messages, for OpenAI chat, OpenAI Responses, Anthropic and Gemini."""

from __future__ import annotations

from typing import Any

from ..values import loads_maybe, pretty
from .anthropic import split_blocks
from .model import Message, ToolCall


def request_messages(request: Any) -> tuple[list[Message], int]:
    """The conversation the model was sent, and how many tools it was offered."""
    if not isinstance(request, dict):
        return [], 0
    tools = request.get("tools")
    tool_count = len(tools) if isinstance(tools, list) else 0
    if isinstance(request.get("contents"), list):
        if isinstance(tools, list):  # Gemini nests declarations: [{functionDeclarations: [...]}]
            tool_count = (
                sum(
                    len(t.get("functionDeclarations") or t.get("function_declarations") or [])
                    for t in tools
                    if isinstance(t, dict)
                )
                or tool_count
            )
        return _gemini(request), tool_count
    if "input" in request or "instructions" in request:
        return _responses(request), tool_count
    if "system" in request or _has_anthropic_blocks(request.get("messages")):
        return _anthropic(request), tool_count
    return _chat(request.get("messages")), tool_count


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                texts.append(
                    part.get("text")
                    or (
                        f"[{part.get('type')}]"
                        if part.get("type") not in ("text", "input_text", "output_text")
                        else ""
                    )
                )
        return "\n".join(t for t in texts if t)
    return "" if content is None else pretty(content)


def _chat(messages: Any) -> list[Message]:
    out: list[Message] = []
    for m in messages if isinstance(messages, list) else []:
        if not isinstance(m, dict):
            continue
        msg = Message(role=str(m.get("role") or "?"), text=_text(m.get("content")))
        reasoning = m.get("reasoning_content") or m.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            msg.reasoning.append(reasoning)
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            msg.tool_calls.append(
                ToolCall(fn.get("name") or "?", loads_maybe(fn.get("arguments")), call.get("id"))
            )
        if m.get("role") == "tool":
            msg.tool_result_for = m.get("tool_call_id") or m.get("name") or "?"
        out.append(msg)
    return out


def _has_anthropic_blocks(messages: Any) -> bool:
    return isinstance(messages, list) and any(
        isinstance(m, dict)
        and isinstance(m.get("content"), list)
        and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result", "thinking")
            for b in m["content"]
        )
        for m in messages
    )


def _anthropic(request: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    if request.get("system"):
        out.append(Message("system", _text(request["system"])))
    for m in request.get("messages") or []:
        if not isinstance(m, dict):
            continue
        role, content = str(m.get("role") or "?"), m.get("content")
        if not isinstance(content, list):
            out.append(Message(role, _text(content)))
            continue
        texts, reasoning, calls, others = split_blocks(content)
        for block in others:
            if block.get("type") == "tool_result":
                out.append(
                    Message(
                        "tool", _text(block.get("content")), tool_result_for=block.get("tool_use_id") or "?"
                    )
                )
        msg = Message(
            role, "".join(t if isinstance(t, str) else str(t) for t in texts), calls, reasoning=reasoning
        )
        if msg.text or msg.tool_calls or msg.reasoning:
            out.append(msg)
    return out


def _responses(request: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    if request.get("instructions"):
        out.append(Message("system", _text(request["instructions"])))
    items = request.get("input")
    if isinstance(items, str):
        return out + [Message("user", items)]
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type") or "message"
        if kind == "message":
            out.append(Message(str(item.get("role") or "?"), _text(item.get("content"))))
        elif kind == "function_call":
            call = ToolCall(item.get("name") or "?", loads_maybe(item.get("arguments")), item.get("call_id"))
            if out and out[-1].role == "assistant" and not out[-1].tool_result_for:
                out[-1].tool_calls.append(call)
            else:
                out.append(Message("assistant", tool_calls=[call]))
        elif kind == "function_call_output":
            out.append(Message("tool", _text(item.get("output")), tool_result_for=item.get("call_id") or "?"))
        elif kind == "reasoning":
            summary = [p.get("text") or "" for p in item.get("summary") or [] if isinstance(p, dict)]
            out.append(Message("assistant", reasoning=["\n".join(summary) or "[encrypted reasoning]"]))
    return out


def _gemini(request: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    system = request.get("systemInstruction") or request.get("system_instruction")
    if isinstance(system, dict):
        out.append(
            Message(
                "system",
                "\n".join(p.get("text") or "" for p in system.get("parts") or [] if isinstance(p, dict)),
            )
        )
    for content in request.get("contents") or []:
        if not isinstance(content, dict):
            continue
        msg = Message("assistant" if content.get("role") == "model" else str(content.get("role") or "user"))
        texts = []
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if "functionCall" in part:
                call = part["functionCall"] or {}
                msg.tool_calls.append(ToolCall(call.get("name") or "?", call.get("args"), call.get("id")))
            elif "functionResponse" in part:
                resp = part["functionResponse"] or {}
                out.append(
                    Message("tool", pretty(resp.get("response")), tool_result_for=resp.get("name") or "?")
                )
            elif part.get("thought"):
                msg.reasoning.append(part.get("text") or "")
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
        msg.text = "".join(texts)
        if msg.text or msg.tool_calls or msg.reasoning:
            out.append(msg)
    return out
