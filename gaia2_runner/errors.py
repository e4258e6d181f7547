"""The one exception type users see.

Everything that is the user's to fix (a bad file, a missing image, no podman) is raised as
`Gaia2Error` with a single line that names the culprit and the fix; the CLI prints it without a
traceback. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class Gaia2Error(Exception):
    """A user-facing failure with a one-line message."""

    def __init__(self, message: str) -> None:
        # Keep it on one line whatever the caller passed, so the CLI output stays one line.
        self.message = " ".join(str(message).split())
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message
