"""What an engine API error (podman-py's) means to the runner: unreachable (worth waiting for) or a message."""

from __future__ import annotations

import requests
from podman.errors import APIError


def unreachable(exc: BaseException) -> bool:
    """Whether a podman-py error means the API could not be reached (no HTTP answer at all)."""
    if isinstance(exc, requests.exceptions.ConnectionError):
        return True
    cause = exc.__cause__ or exc.__context__
    return (
        isinstance(exc, APIError)
        and getattr(exc, "response", None) is None
        and isinstance(cause, (requests.exceptions.ConnectionError, requests.exceptions.Timeout))
    )


def api_message(exc: BaseException) -> str:
    """The engine's explanation of an API error (an OSError's own message), on one line."""
    text = " ".join(str(getattr(exc, "explanation", None) or exc).split())
    if "slirp4netns" in text:
        text += " (install slirp4netns: apt-get install slirp4netns, or run scripts/setup-podman.sh)"
    return text
