"""Calls to tools the model was never offered: a made-up name is a tool error the agent made.

The daemon answers an unknown tool with 404 and records nothing in events.jsonl, so the evidence is
in the trace: the request's `tools` (what the model was offered) and the tool calls in its reply,
plus the built-in runtime's `text_tool_calls`, whose `error` says when a name was unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .model import LlmCall

UNKNOWN_PREFIX = "unknown tool"  # how the built-in runtime words it (runtimes/llm/text_calls.py)


def offered_names(request: Any) -> set[str] | None:
    """Names of the tools offered in a request body (OpenAI chat and Responses, Anthropic, Gemini);
    None when the request offered none, or one whose name cannot be read (a provider's built-in
    tool such as `{"type": "web_search"}`): then no call can be called unknown."""
    tools = request.get("tools") if isinstance(request, dict) else None
    if not isinstance(tools, list) or not tools:
        return None
    names: set[str] = set()
    for tool in tools:
        if not isinstance(tool, dict):
            return None
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if isinstance(declarations, list):  # Gemini nests them
            entries = declarations
        else:
            function = tool.get("function")
            entries = [function if isinstance(function, dict) else tool]
        for entry in entries:
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name:
                return None
            names.add(name)
    return names


def unknown_calls(request: Any, called: list[str], text_calls: Any) -> list[str]:
    """Names the model called that it was not offered, in order (repeats kept: each is an error)."""
    offered = offered_names(request)
    unknown = [name for name in called if offered is not None and name not in offered]
    if isinstance(text_calls, list):
        unknown += [
            str(c.get("name") or "?")
            for c in text_calls
            if isinstance(c, dict)
            and isinstance(c.get("error"), str)
            and c["error"].startswith(UNKNOWN_PREFIX)
        ]
    return unknown


def unknown_tool_count(calls: Iterable[LlmCall]) -> int:
    """Calls to tool names the model was never offered: tool errors no events.jsonl line records,
    so the run's tool-error count (RunRecord.tool_errors) adds them to the events' failed calls."""
    return sum(len(call.unknown_tools) for call in calls)
