"""`python -m gaia2_container.runtimes.call TOOL [JSON_ARGS]`: one raw ARE tool call, result as JSON.

For scripted agents (GAIA2_AGENT_COMMAND) and tests that need a tool the gaia2-cli surface does not
offer as a command (`SystemApp__wait_for_notification`); exit 1 with the error on stderr.
"""

from __future__ import annotations

import json
import sys

from .tools_client import ToolApiError, call_tool


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) not in (1, 2):
        print("usage: python -m gaia2_container.runtimes.call TOOL [JSON_ARGS]", file=sys.stderr)
        return 2
    try:
        args = json.loads(argv[1]) if len(argv) == 2 else {}
        outcome = call_tool(argv[0], args)
    except (ToolApiError, json.JSONDecodeError) as exc:
        print(str(exc), file=sys.stderr)
        return 1
    if not outcome.get("ok"):
        print(outcome.get("error"), file=sys.stderr)
        return 1
    print(json.dumps(outcome.get("result"), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
