"""What the model relay reads in a request body, and the one change it makes to it.

- The model is pinned. A run measures the configured model (GAIA2_AGENT_MODEL; the experts' model
  on their relay), and its cost and --cost-limit are priced for it: a model call naming another
  model (the body's `model`, or Gemini's `/models/NAME:generateContent` path) is refused before it
  leaves. Names compare exactly (OpenRouter's "openai/gpt-4o-mini" is a name like any other), except
  that Gemini's "models/" prefix is no part of the name and a path's name is read percent-decoded, as
  the provider reads it. A body whose objects repeat a key is refused too: providers' parsers
  disagree on which copy counts, so the relay could not know which model it forwards. Requests
  that are no model calls (a model list, a token count: provider/paths.py) cost nothing and pass.
- A streamed Chat Completions request (`"stream": true`) gets `stream_options.include_usage: true`
  (other stream_options kept): without it OpenAI-style providers report no usage in a stream, and
  the budget and the cost would see nothing. The agent then receives one more final chunk, with
  empty `choices` and the `usage` (the OpenAI SDKs and LiteLLM read it; a client that indexes
  `choices[0]` of every chunk without looking does not). Responses, Anthropic and Gemini streams
  report usage by themselves.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

from ..provider.faults import Request
from ..provider.paths import GEMINI_PATH, is_model_call

_CHAT = re.compile(r"(?:^|/)chat/completions$")
_GEMINI_PREFIX = "models/"


class _Repeated(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for key, value in pairs:
        if key in doc:
            raise _Repeated(key)
        doc[key] = value
    return doc


def parse(body: bytes) -> tuple[Any, str | None]:
    """The JSON body (None when it is not JSON) and a key some object in it repeats (else None)."""
    if not body.strip():
        return None, None
    try:
        return json.loads(body, object_pairs_hook=_no_repeats), None
    except _Repeated as exc:
        return None, exc.key
    except (ValueError, RecursionError):
        return None, None


def model_refusal(pinned: str | None, request: Request, repeated: str | None) -> str | None:
    """Why the relay must not forward `request` when the run's model is `pinned` (None: no model
    is configured, nothing is pinned), else None."""
    if not pinned or not is_model_call(request.path):
        return None
    if repeated is not None:
        return f"the request body repeats the key {repeated!r}: the relay cannot tell which one the provider reads"
    gemini = GEMINI_PATH.match(unquote(request.bare_path))
    body = request.body
    if gemini is not None:
        named = gemini.group(1)
        if named != pinned.removeprefix(_GEMINI_PREFIX):
            return _other(named, pinned)
        if (
            isinstance(body, dict)
            and "model" in body
            and body["model"] not in (pinned, _GEMINI_PREFIX + named, named)
        ):
            return _other(body["model"], pinned)
        return None
    if not isinstance(body, dict):
        return f"the request body is not a JSON object naming the model: this run's model is {pinned!r}"
    if body.get("model") != pinned:
        return _other(body.get("model"), pinned)
    return None


def _other(named: Any, pinned: str) -> str:
    shown = (
        repr(named[:200]) if isinstance(named, str) else "no model" if named is None else repr(named)[:200]
    )
    return (
        f"this run's model is {pinned!r}; the request names {shown}: the relay forwards calls "
        f"to the configured model only"
    )


def with_stream_usage(request: Request, body: bytes) -> bytes:
    """The body to forward: a streamed Chat Completions request asking for its usage, else `body`."""
    doc = request.body
    if not (isinstance(doc, dict) and doc.get("stream") is True and _CHAT.search(request.bare_path)):
        return body
    options = doc.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage") is True:
        return body
    doc = {**doc, "stream_options": {**(options if isinstance(options, dict) else {}), "include_usage": True}}
    try:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate the agent escaped: escape everything
        return json.dumps(doc, separators=(",", ":")).encode()
