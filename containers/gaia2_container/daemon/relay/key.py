"""The run's provider credential: the agent holds a placeholder, the relay adds the real key.

The agent under test must not hold the provider key: with it (and any way out of the container) it
could call the provider around the relay, calls that are in neither the trace nor the cost, or carry
the key off. So the daemon (root) keeps the key out of the agent's environment and files and gives
it a per-run placeholder shaped like a key (harness CLIs refuse to start without one); the relay,
in the daemon's memory, swaps the placeholder for the configured key in each credential the agent
sends (Authorization Bearer, x-api-key, x-goog-api-key, api-key, Gemini's `?key=`). For a keyless
endpoint the placeholder is removed instead. A credential other than the placeholder is forwarded
as sent: it is the agent's own, and so is what the provider answers to it (provider/faults.py).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

# Header names that carry a provider key, as the runtimes and harnesses send it (lower case).
CREDENTIAL_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key")
KEY_QUERY_PARAMS = ("key",)  # Gemini's ?key=
PLACEHOLDER_PREFIX = "sk-gaia2-placeholder-"
PLACEHOLDER_BYTES = 24


def new_placeholder() -> str:
    """A fresh per-run stand-in for the key: random, shaped like an OpenAI-style key."""
    return PLACEHOLDER_PREFIX + secrets.token_hex(PLACEHOLDER_BYTES)


@dataclass(frozen=True)
class RunCredential:
    """The placeholder the agent holds and the key it stands for (None: a keyless endpoint)."""

    placeholder: str
    key: str | None = field(default=None, repr=False)  # a secret: never logged

    def headers(self, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The headers to forward: the placeholder replaced by the key in each credential header
        (dropped for a keyless endpoint); every other header as the agent sent it."""
        out = []
        for name, value in headers:
            if name.lower() in CREDENTIAL_HEADERS and self.placeholder in value:
                if self.key is None:
                    continue
                value = value.replace(self.placeholder, self.key)
            out.append((name, value))
        return out

    def path(self, path: str) -> str:
        """The path to forward: a `key` query parameter holding the placeholder gets the key (or is
        dropped for a keyless endpoint); the path is untouched otherwise."""
        bare, sep, query = path.partition("?")
        if not sep or self.placeholder not in query:
            return path
        params = []
        for name, value in parse_qsl(query, keep_blank_values=True):
            if name in KEY_QUERY_PARAMS and value == self.placeholder:
                if self.key is None:
                    continue
                value = self.key
            params.append((name, value))
        return f"{bare}?{urlencode(params)}" if params else bare
