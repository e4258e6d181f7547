"""Tool calls a model wrote as text, recognised when the server parsed none.

Small open models served by llama.cpp, vLLM or Ollama often answer a tools request with the call
in their text instead of the API's tool_calls field, and the server passes that text on. Read as
an answer it would end the turn, so the loop asks this module first. Recognised, in the order
they appear in the reply:

- `<tool_call>{...}</tool_call>` (Qwen/Hermes tags; the closing tag may be missing),
- `Action: {...}<end_action>` (the blob ARE's default agent asks for: `action`, `action_input`),
- a fenced block, ```` ```json ```` or bare ```` ``` ````, holding a JSON object or list,
- a reply that is nothing but a JSON object or list.

A call is an object with `name` and `arguments` (or `parameters`; an object or a JSON string),
`action` and `action_input`, or `{"function": {"name", "arguments"}}`; a `name` object without
either key has its other keys taken as the arguments. Each JSON value is read
from its opening brace to its matching end (never by searching for the last brace), so a call
quoted inside another call's string argument stays text. The name must be one of the offered
tools. A near miss that matches exactly one tool (`send_message_to_user` for
`AgentUserInterface__send_message_to_user`, other case or separators) is reported back as an
error naming the right tool, never run under a guessed name. A tag or `Action:` blob is a call
attempt whatever it holds: when its JSON is malformed or its tool unknown the model gets the
error; in a fenced block or bare JSON an unknown name means the text was not a call (the
model may be showing the user some JSON).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

TAG, ACTION, FENCED, BARE = "tool_call_tag", "are_action", "fenced_json", "bare_json"
EXPLICIT = frozenset({TAG, ACTION})  # formats that can only be meant as calls
UNPARSED = "__unparsed_arguments__"  # the arguments' marker for "not a JSON object" (providers.base)

_OPENERS = re.compile(
    r"<tool_call>|Action:|```(?:json|JSON|tool_call)?[ \t]*(?=\r?\n|[\[{])",
)
_FENCE = re.compile(r"```(?:json|JSON)?")
_CLOSERS = {TAG: "</tool_call>", ACTION: "<end_action>", FENCED: "```"}
_DECODER = json.JSONDecoder(strict=False)  # small models put raw newlines inside strings


@dataclass
class TextCall:
    """One call found in the text: run it when `error` is None, else return `error` to the model."""

    name: str
    arguments: dict[str, Any]
    format: str
    error: str | None = None

    def trace_entry(self, run: bool) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "format": self.format,
            "name": self.name,
            "arguments": self.arguments,
            "run": run,
        }
        if self.error:
            entry["error"] = self.error
        return entry


@dataclass
class TextCalls:
    """Every call-shaped thing a reply held, in order. Only the first is run (see docs/reference/llm-agent.md)."""

    calls: list[TextCall] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.calls)

    @property
    def first(self) -> TextCall:
        return self.calls[0]

    @property
    def ignored(self) -> int:
        return len(self.calls) - 1

    def trace_entries(self) -> list[dict[str, Any]]:
        return [c.trace_entry(run=i == 0 and c.error is None) for i, c in enumerate(self.calls)]


def recognise(text: str, tool_names: Collection[str]) -> TextCalls:
    """The tool calls written in `text` (an empty result when it is plain text)."""
    names = set(tool_names)
    found = TextCalls()
    if not text or not names:
        return found
    for fmt, body, span_text in _candidates(text):
        found.calls.extend(_calls_in(fmt, body, span_text, names))
    return found


# ---- finding JSON in the text ------------------------------------------------------------------
def _candidates(text: str) -> list[tuple[str, Any, str]]:
    """(format, decoded JSON or a decode error, the span's text) for each opener, left to right;
    an opener inside an earlier span (a quoted call in a string argument) is skipped."""
    out: list[tuple[str, Any, str]] = []
    stripped = text.strip()
    if stripped[:1] in "{[":
        value, end = _decode(text, text.index(stripped[0]))
        if not isinstance(value, _Malformed) and not text[end:].strip():
            return [(BARE, value, text)]
        if isinstance(value, _Malformed):
            out.append((BARE, value, text))
            return out
    pos = 0
    while True:
        match = _OPENERS.search(text, pos)
        if match is None:
            return out
        opener = match.group(0)
        fmt = TAG if opener == "<tool_call>" else ACTION if opener == "Action:" else FENCED
        start = _skip_space(text, match.end())
        fence = _FENCE.match(text, start) if fmt == ACTION else None  # ARE's blob may sit in a fence
        if fence:
            start = _skip_space(text, fence.end())
        if start >= len(text) or text[start] not in "{[":
            if fmt == TAG:  # a tag is unmistakable; "Action:" may begin ordinary prose
                out.append(
                    (
                        fmt,
                        _Malformed("no JSON object after " + opener),
                        text[match.start() : match.start() + 200],
                    )
                )
            pos = match.end()
            continue
        value, end = _decode(text, start)
        closer = _CLOSERS[fmt]
        after = _skip_space(text, end)
        if fence and text.startswith("```", after):
            after = _skip_space(text, after + 3)
        if text.startswith(closer, after):
            end = after + len(closer)
        elif isinstance(value, _Malformed):  # resume after the block, whatever it held
            close_at = text.find(closer, start)
            end = close_at + len(closer) if close_at >= 0 else len(text)
        out.append((fmt, value, text[match.start() : end]))
        pos = max(end, match.end())


class _Malformed(str):
    """A JSON decode error, kept as its message."""


def _decode(text: str, start: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, start)
    except ValueError as exc:
        return _Malformed(str(exc)), start


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


# ---- from JSON to calls ------------------------------------------------------------------------
def _calls_in(fmt: str, value: Any, span: str, names: set[str]) -> list[TextCall]:
    if isinstance(value, _Malformed):
        if fmt in EXPLICIT or any(n in span for n in names):
            return [
                TextCall(
                    "",
                    {},
                    fmt,
                    f"your tool call could not be read: {value}. Write one JSON object: "
                    '{"name": "<tool>", "arguments": {...}}',
                )
            ]
        return []
    items = value if isinstance(value, list) else [value]
    calls: list[TextCall] = []
    for item in items:
        shape = _call_shape(item)
        if shape is None:
            if fmt in EXPLICIT:
                calls.append(
                    TextCall("", {}, fmt, 'not a tool call: write {"name": "<tool>", "arguments": {...}}')
                )
            continue
        name, arguments = shape
        call = _resolve(name, _arguments(arguments), fmt, names)
        if call is not None:
            calls.append(call)
    return calls


def _call_shape(item: Any) -> tuple[str, Any] | None:
    """(name, raw arguments) when `item` has the shape of a call, else None."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        item = function
    for name_key, args_keys in (("name", ("arguments", "parameters")), ("action", ("action_input",))):
        name = item.get(name_key)
        if isinstance(name, str) and name.strip():
            present = [k for k in args_keys if k in item]
            if present:
                return name.strip(), item[present[0]]
            rest = {k: v for k, v in item.items() if k not in (name_key, "type", "id")}
            return name.strip(), rest  # {"name": tool, "content": ...}: the arguments written flat
    return None


def _arguments(raw: Any) -> dict[str, Any]:
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw, strict=False)
        except ValueError:
            return {UNPARSED: raw}
    return raw if isinstance(raw, dict) else {UNPARSED: raw}


def _resolve(name: str, arguments: dict[str, Any], fmt: str, names: set[str]) -> TextCall | None:
    if name in names:
        return TextCall(name, arguments, fmt)
    guess = near_miss(name, names)
    if guess is not None:
        return TextCall(
            name, arguments, fmt, f"unknown tool {name!r}: did you mean {guess!r}? Call it by its full name."
        )
    if fmt in EXPLICIT:
        return TextCall(
            name,
            arguments,
            fmt,
            f"unknown tool {name!r}: call one of the tools you were given, by its full name",
        )
    return None


def near_miss(name: str, names: Collection[str]) -> str | None:
    """The one offered tool `name` plainly means (case, separators, or the function part alone)."""
    key = _fold(name)
    if not key:
        return None
    matches = {n for n in names if _fold(n) == key or _fold(n.split("__")[-1]) == key}
    return next(iter(matches)) if len(matches) == 1 else None


def _fold(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())
