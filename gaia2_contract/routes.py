"""The daemon's HTTP route paths: the adapter API (runner-facing, on ADAPTER_PORT, token required
except /health) and the tool API (agent-facing, loopback only on TOOLS_PORT).

The daemon serves these (gaia2_container/daemon/routes.py) and every client builds its URLs from
them: the runner's adapter client and image check, the runtimes' tool client. Request and response
shapes are in docs/reference/container-contract.md.
"""

from __future__ import annotations

# Both APIs: the state word ("starting", "ok", "error"); with the adapter token, also the scenario.
HEALTH = "/health"

# ---- adapter API (runner-facing) ----------------------------------------------------------------
STATUS = "/status"  # the daemon's status document (final statuses: constants.FINAL_STATUSES)
NOTIFY = "/notify"  # POST {"message", "sender"}: a message for the agent
MESSAGES = "/messages"  # ?after=N: what the agent wrote to the user
# POST {"env": {...}}: a warm container (constants.ENV_WARM) is given its one scenario, already
# copied in, with the variables of constants.ASSIGNED_ENV; accepted once.
ASSIGN = "/assign"

# ---- tool API (agent-facing) --------------------------------------------------------------------
TOOLS = "/tools"  # the scenario's tools
CALL = "/call"  # POST {"tool", "args"} (and CALL_ENDS_TURN)
# /call's optional flag: true when this final-message call ends the agent's turn even if it raises
# (ARE's default agent: its termination step reads the call, not its outcome).
CALL_ENDS_TURN = "ends_turn"
INBOX = "/inbox"  # ?after=N: messages for the agent, and whether the scenario is done
TIME = "/time"  # simulated and wall time, the clock's mode and speed
ORACLE_PLAN = "/oracle/plan"  # the ground truth: built-in oracle only
ORACLE_COMPLETED = "/oracle/completed"  # oracle events that fired: built-in oracle only
ORACLE_ADVANCE = "/oracle/advance"  # POST: move the manual clock: built-in oracle only

AFTER = "after"  # the paging parameter of MESSAGES and INBOX: items with an index above it

ADAPTER_PATHS = (HEALTH, STATUS, NOTIFY, MESSAGES, ASSIGN)
TOOL_PATHS = (HEALTH, TOOLS, CALL, INBOX, TIME, ORACLE_PLAN, ORACLE_COMPLETED, ORACLE_ADVANCE)
ALL_PATHS = tuple(dict.fromkeys(ADAPTER_PATHS + TOOL_PATHS))


def inbox_after(index: int) -> str:
    """The INBOX path with its query: messages with an index above `index`."""
    return f"{INBOX}?{AFTER}={index}"
