"""Which request paths the model relay forwards: the provider API paths the runtimes need, nothing else.

The relay forwards to the configured upstream + the agent's path. A path the agent shapes freely could
leave the base path (`/v1/../boom` reaches `/boom`: httpx and servers resolve dot segments), reach
whatever else the provider's host serves, and collect answers there (two 5xx from any page made a
failing run a "provider outage" error and a rerun). So a path is checked as sent, before anything is
forwarded: it must be plain (no dot segments, no encoded separators or dots, no doubled or back
slashes) and one of the API paths below, relative to the configured base URL (with or without a
version prefix the base URL lacked). Only model calls (MODEL_CALL) can count as evidence of an
outage (faults.py); the side paths are model lists and token counts some harnesses ask for.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_VERSION = r"(?:/v1(?:beta)?)?"
# A model call: OpenAI Chat Completions / Responses, Anthropic Messages, Gemini generateContent.
API_PATH = re.compile(rf"^{_VERSION}/(?:chat/completions|responses|messages)$")
GEMINI_PATH = re.compile(rf"^{_VERSION}/models/([^/:]+):(?:stream)?[gG]enerateContent$")
# Forwarded too, never evidence of an outage: model lists and lookups, token counts.
SIDE_PATHS = (
    re.compile(rf"^{_VERSION}/models(?:/[^/:]+)?$"),
    re.compile(rf"^{_VERSION}/models/[^/:]+:countTokens$"),
    re.compile(rf"^{_VERSION}/messages/count_tokens$"),
)
# Encoded '/', '.', '\' and '%' (double encoding), NUL: a server may decode them into a path the
# check never saw.
_ENCODED = re.compile(r"%(?:2f|2e|5c|25|00)", re.IGNORECASE)
BAD_PATH_STATUS = 400
NOT_FORWARDED_STATUS = 404


def plain_path(path: str) -> str:
    """The path as the provider reads it: no query, percent-decoded (httpx and servers decode
    `complet%69ons`; every rule of the relay must see what the provider will)."""
    return unquote(path.split("?", 1)[0])


def is_model_call(path: str) -> bool:
    """A model call of the configured endpoint (query ignored): the only answers that can make an outage."""
    bare = plain_path(path)
    return bool(API_PATH.match(bare) or GEMINI_PATH.match(bare))


def refusal(path: str) -> tuple[int, str] | None:
    """(HTTP status, why) when the relay must not forward `path` (as the request line gave it, query
    included); None when it is a provider API path it forwards."""
    if "#" in path:  # httpx drops a fragment: what the rules saw would not be what the provider gets
        return BAD_PATH_STATUS, "a request target holds no fragment ('#')"
    bare = path.split("?", 1)[0]
    if not bare.startswith("/"):
        # "http://host/…" or "@host/…" would send the request elsewhere.
        return BAD_PATH_STATUS, "the relay forwards paths below the configured endpoint only"
    if "//" in bare or "\\" in bare or _ENCODED.search(bare):
        return BAD_PATH_STATUS, f"path {_show(bare)} has a doubled or back slash or an encoded separator"
    if any(segment in (".", "..") for segment in bare.split("/")):
        return BAD_PATH_STATUS, f"path {_show(bare)} has a dot segment"
    plain = unquote(bare)
    if is_model_call(plain) or any(pattern.match(plain) for pattern in SIDE_PATHS):
        return None
    return NOT_FORWARDED_STATUS, f"path {_show(bare)} is not a provider API path the relay forwards"


def _show(path: str) -> str:
    return repr(path[:120] + ("…" if len(path) > 120 else ""))
