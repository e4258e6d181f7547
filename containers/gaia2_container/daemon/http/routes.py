"""The daemon's HTTP routes: the adapter contract (runner-facing) and the tool API (agent-facing).

Kept apart from start-up so the request and response shapes of docs/reference/container-contract.md live in
one file; handlers only read `DaemonState`, which main() fills in as the scenario loads.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gaia2_contract import constants, routes

from ..loader import LoadedScenario
from ..session.core import Session
from ..session.recorder import EventRecorder
from ..session.status import StatusBoard
from .server import JsonHandler, Route, int_param


@dataclass
class DaemonState:
    """What the handlers of both servers read; `session` and `loaded` appear once the scenario loads."""

    runtime: str
    status: StatusBoard
    recorder: EventRecorder
    session: Session | None = None
    loaded: LoadedScenario | None = None
    ready: threading.Event = field(default_factory=threading.Event)
    load_error: str | None = None
    # Ground truth is served only to the built-in oracle runtime: never to a custom agent command,
    # even one started in an oracle image.
    serves_oracle: bool = False
    # A warm container waits for its one scenario (constants.ENV_WARM): POST /assign sets
    # `assignment` (the variables of constants.ASSIGNED_ENV) and `assigned`, once.
    warm: bool = False
    assignment: dict[str, str] | None = None
    assigned: threading.Event = field(default_factory=threading.Event)
    _assign_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def assign(self, env: dict[str, str]) -> bool:
        """Take the one assignment; False when this container is not warm or already has one."""
        with self._assign_lock:
            if not self.warm or self.assigned.is_set():
                return False
            self.assignment = env
            self.assigned.set()
            return True


# ---- adapter contract (runner-facing) -----------------------------------------------------------
def _health(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    """Open to anyone, so without the adapter token it says nothing but the state word. The tool
    API has no token (the agent is its client): there it is always the state word alone."""
    st: DaemonState = h.daemon_state
    body: dict[str, Any]
    if st.load_error:
        code, body = 500, {"status": "error", "error": st.load_error}
    elif not st.ready.is_set():
        code, body = 503, {"status": "starting"}
    else:
        code, body = (
            200,
            {
                "status": "ok",
                "scenario_id": st.loaded.scenario_id if st.loaded else None,
                "runtime": st.runtime,
            },
        )
    return code, body if h.token is not None and h.authorized() else {"status": body["status"]}


def _status(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    return 200, h.daemon_state.status.snapshot()


def _notify(h: JsonHandler, _q: dict, body: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if not isinstance(body, dict) or not isinstance(body.get("message"), str):
        return 400, {"error": 'expected {"message": "<text>"}'}
    sender = body.get("sender", "user")
    if sender not in ("user", "system"):
        return 400, {"error": "sender must be 'user' or 'system'"}
    if st.session is None:
        return 503, {"error": "scenario not loaded yet"}
    return 202, {"accepted": True, "index": st.session.notify(body["message"], sender)}


def _assign(h: JsonHandler, _q: dict, body: Any) -> tuple[int, Any]:
    """The runner gives a warm container its scenario (already copied in) and its time limits.
    Token only (the agent does not exist yet, and never holds the token); accepted once."""
    st: DaemonState = h.daemon_state
    env = body.get("env") if isinstance(body, dict) else None
    if not isinstance(env, dict) or not all(
        k in constants.ASSIGNED_ENV and isinstance(v, str) and v.strip() for k, v in env.items()
    ):
        return 400, {
            "error": f'expected {{"env": {{...}}}} with string values of {list(constants.ASSIGNED_ENV)}'
        }
    if not st.assign({str(k): str(v) for k, v in env.items()}):
        return 409, {"error": "not a warm container, or its scenario was assigned already"}
    return 202, {"status": "assigned"}


def _page(query: dict, fetch: Callable[[int], list[dict[str, Any]]]) -> tuple[int, dict[str, Any]]:
    """`?after=N` paging shared by /messages and /inbox: items with index > N, and the next N."""
    try:
        after = int_param(query, routes.AFTER, -1)
    except ValueError:
        return 400, {"error": "after must be an integer"}
    items = fetch(after)
    return 200, {"messages": items, "next": (items[-1]["index"] + 1) if items else after + 1}


def _messages(h: JsonHandler, query: dict, _b: Any) -> tuple[int, Any]:
    session: Session | None = h.daemon_state.session
    return _page(query, session.messages_after if session else lambda _after: [])


# ---- tool API (agent-facing, loopback only, no token: the agent is its only client) ----------
def _tools(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if st.session is None or st.session.toolbox is None:
        return 503, {"error": "scenario not loaded yet"}
    return 200, {"tools": [s.to_dict() for s in st.session.toolbox.specs()]}


def _call(h: JsonHandler, _q: dict, body: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if st.session is None:
        return 503, {"error": "scenario not loaded yet"}
    if not isinstance(body, dict) or not isinstance(body.get("tool"), str):
        return 400, {"error": 'expected {"tool": "<App__function>", "args": {...}}'}
    args = body.get("args") or {}
    if not isinstance(args, dict):
        return 400, {"error": "args must be a JSON object"}
    try:
        return 200, st.session.call_tool(
            body["tool"], args, ends_turn=body.get(routes.CALL_ENDS_TURN) is True
        )
    except KeyError:
        return 404, {"error": f"unknown tool {body['tool']!r}: GET {routes.TOOLS} lists them"}


def _inbox(h: JsonHandler, query: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    code, payload = _page(query, st.session.inbox_after if st.session else lambda _after: [])
    if code == 200:
        payload["done"] = st.session.done.is_set() if st.session else st.status.is_final
    return code, payload


def _time(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    clock = st.session.clock if st.session else None
    return 200, {
        "sim_time": st.session.sim_time() if st.session else None,
        "wall_time": time.time(),
        # The scenario's own start time (ARE's default agent dates its system prompt by it).
        "start_time": getattr(st.session.scenario, "start_time", None) if st.session else None,
        "clock": clock.mode if clock else None,
        "time_speed": clock.speed if clock else None,
    }


def _oracle_plan(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if not st.serves_oracle:
        return 403, {"error": "the oracle plan is only served to the built-in oracle runtime"}
    if st.loaded is None:
        return 503, {"error": "scenario not loaded yet"}
    return 200, {"actions": st.loaded.oracle_plan, "nb_turns": st.session.nb_turns if st.session else None}


def _oracle_completed(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if not st.serves_oracle:
        return 403, {"error": "only for the built-in oracle runtime"}
    return 200, {"event_ids": st.session.logged_event_ids() if st.session else []}


def _oracle_advance(h: JsonHandler, _q: dict, body: Any) -> tuple[int, Any]:
    """Move the simulated clock (manual mode: the built-in oracle only) to `until`, or until the next
    scenario event when `until` is null; at most `max_seconds` (default 3600) per request."""
    st: DaemonState = h.daemon_state
    if not st.serves_oracle:
        return 403, {"error": "only the built-in oracle runtime may move the clock"}
    if st.session is None:
        return 503, {"error": "scenario not loaded yet"}
    if not st.session.clock.manual:
        return 409, {"error": "the clock is not manual"}
    body = body if isinstance(body, dict) else {}
    until, limit = body.get("until"), body.get("max_seconds", 3600)
    if (until is not None and not _finite(until)) or not _finite(limit) or limit <= 0:
        return 400, {
            "error": 'expected {"until": <simulated epoch seconds or null>, "max_seconds": <positive>}'
        }
    return 200, st.session.clock.advance(None if until is None else float(until), float(limit))


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# Needs no adapter token (and reveals nothing without one); every other adapter route does.
ADAPTER_PUBLIC_ROUTES = frozenset({("GET", routes.HEALTH)})
ADAPTER_ROUTES: dict[tuple[str, str], Route] = {
    ("GET", routes.HEALTH): _health,
    ("GET", routes.STATUS): _status,
    ("POST", routes.NOTIFY): _notify,
    ("GET", routes.MESSAGES): _messages,
    ("POST", routes.ASSIGN): _assign,
}
TOOL_ROUTES: dict[tuple[str, str], Route] = {
    ("GET", routes.HEALTH): _health,
    ("GET", routes.TOOLS): _tools,
    ("POST", routes.CALL): _call,
    ("GET", routes.INBOX): _inbox,
    ("GET", routes.TIME): _time,
    ("GET", routes.ORACLE_PLAN): _oracle_plan,
    ("GET", routes.ORACLE_COMPLETED): _oracle_completed,
    ("POST", routes.ORACLE_ADVANCE): _oracle_advance,
}
