"""Keep the conversation under a character budget by shortening the oldest tool results first.

The system prompt and the first user message (the task) are never touched; newer results are
what the model is working with, so they go last.
"""

from __future__ import annotations

from .messages import Message

TRIMMED = "[older tool result removed to save context: {n} characters]"


def size(messages: list[Message]) -> int:
    return sum(
        len(m.content) + sum(len(str(c.arguments)) + len(c.name) for c in m.tool_calls) for m in messages
    )


def trim(messages: list[Message], max_chars: int, keep_last: int = 2) -> int:
    """Shorten messages in place until they fit; return how many were shortened."""
    total = size(messages)
    if total <= max_chars:
        return 0
    protected = _protected(messages)
    shortened = 0
    for role in ("tool", "assistant", "user"):
        candidates = [i for i, m in enumerate(messages) if _kind(m) == role and i not in protected]
        for i in candidates[: max(0, len(candidates) - keep_last)]:
            m = messages[i]
            stub = TRIMMED.format(n=len(m.content))
            if len(m.content) <= len(stub):
                continue
            total -= len(m.content) - len(stub)
            m.content = stub
            m.raw = None  # a provider's raw copy would still carry the old text
            shortened += 1
            if total <= max_chars:
                return shortened
    return shortened


def _kind(m: Message) -> str:
    """A user message carrying the result of a call written as text is trimmed as a tool result."""
    return "tool" if m.role == "user" and m.name else m.role


def _protected(messages: list[Message]) -> set[int]:
    keep = {i for i, m in enumerate(messages) if m.role == "system"}
    first_user = next((i for i, m in enumerate(messages) if m.role == "user"), None)
    if first_user is not None:
        keep.add(first_user)
    return keep
