"""`python -m gaia2_container.runtimes.reply TEXT`: send TEXT to the user (ends the turn).

For scripted agents (GAIA2_AGENT_COMMAND) only: the user interface is not a gaia2-cli command, since
a CLI harness's final reply is its message to the user (the harness driver sends it).
"""

from __future__ import annotations

import sys

from .tools_client import ToolApiError, call_tool

SEND_TO_USER = "AgentUserInterface__send_message_to_user"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 1:
        print("usage: python -m gaia2_container.runtimes.reply TEXT", file=sys.stderr)
        return 2
    try:
        outcome = call_tool(SEND_TO_USER, {"content": argv[0]})
    except ToolApiError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    if not outcome.get("ok"):
        print(outcome.get("error"), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
