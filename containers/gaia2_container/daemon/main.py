"""Daemon entry point: serve the contract, load the scenario, start the clock and the agent runtime."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .. import paths
from .agent_process import AgentProcess, agent_command
from .app_commands import install_app_commands
from .http_api import JsonHandler, int_param, serve
from .loader import LoadedScenario, ScenarioLoadError, load_scenario
from .recorder import EventRecorder
from .session import Session
from .status import StatusBoard

log = logging.getLogger("gaia2.daemon")


@dataclass
class DaemonState:
    runtime: str
    status: StatusBoard
    recorder: EventRecorder
    session: Session | None = None
    loaded: LoadedScenario | None = None
    ready: threading.Event = field(default_factory=threading.Event)
    load_error: str | None = None


# ---- adapter contract (runner-facing) -----------------------------------------------------------
def _health(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if st.load_error:
        return 500, {"status": "error", "error": st.load_error}
    if not st.ready.is_set():
        return 503, {"status": "starting"}
    return 200, {"status": "ok", "scenario_id": st.loaded.scenario_id if st.loaded else None, "runtime": st.runtime}


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


def _page(query: dict, fetch: Callable[[int], list[dict[str, Any]]]) -> tuple[int, dict[str, Any]]:
    """`?after=N` paging shared by /messages and /inbox: items with index > N, and the next N."""
    try:
        after = int_param(query, "after", -1)
    except ValueError:
        return 400, {"error": "after must be an integer"}
    items = fetch(after)
    return 200, {"messages": items, "next": (items[-1]["index"] + 1) if items else after + 1}


def _messages(h: JsonHandler, query: dict, _b: Any) -> tuple[int, Any]:
    session: Session | None = h.daemon_state.session
    return _page(query, session.messages_after if session else lambda _after: [])


# ---- tool API (agent-facing, loopback only) -------------------------------------------------------
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
        return 200, st.session.call_tool(body["tool"], args)
    except KeyError:
        return 404, {"error": f"unknown tool {body['tool']!r}: GET /tools lists them"}


def _inbox(h: JsonHandler, query: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    code, payload = _page(query, st.session.inbox_after if st.session else lambda _after: [])
    if code == 200:
        payload["done"] = st.session.done.is_set() if st.session else st.status.is_final
    return code, payload


def _time(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    return 200, {"sim_time": st.session.sim_time() if st.session else None, "wall_time": time.time()}


def _oracle_plan(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if st.runtime != "oracle":
        return 403, {"error": "the oracle plan is only served to the oracle runtime"}
    if st.loaded is None:
        return 503, {"error": "scenario not loaded yet"}
    return 200, {"actions": st.loaded.oracle_plan, "nb_turns": st.session.nb_turns if st.session else None}


def _oracle_completed(h: JsonHandler, _q: dict, _b: Any) -> tuple[int, Any]:
    st: DaemonState = h.daemon_state
    if st.runtime != "oracle":
        return 403, {"error": "only for the oracle runtime"}
    return 200, {"event_ids": st.session.fired_event_ids() if st.session else []}


ADAPTER_ROUTES = {
    ("GET", "/health"): _health,
    ("GET", "/status"): _status,
    ("POST", "/notify"): _notify,
    ("GET", "/messages"): _messages,
}
TOOL_ROUTES = {
    ("GET", "/health"): _health,
    ("GET", "/tools"): _tools,
    ("POST", "/call"): _call,
    ("GET", "/inbox"): _inbox,
    ("GET", "/time"): _time,
    ("GET", "/oracle/plan"): _oracle_plan,
    ("GET", "/oracle/completed"): _oracle_completed,
}


def _setup_logging() -> None:
    paths.OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    handlers: list[logging.Handler] = [
        logging.FileHandler(paths.OUTPUT_DIR / "daemon.log", encoding="utf-8"),
        logging.StreamHandler(sys.stderr),
    ]
    level = os.environ.get("GAIA2_LOG_LEVEL", "INFO").upper()
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", handlers=handlers)
    # ARE logs every tick at INFO; keep its chatter out of the daemon log unless asked for.
    logging.getLogger("are").setLevel(os.environ.get("GAIA2_ARE_LOG_LEVEL", "WARNING").upper())


def _exit_on_sigterm(_signum: int, _frame: Any) -> None:
    # As PID 1 the daemon gets no default SIGTERM action: exit at once so `podman stop` is quick.
    logging.getLogger("gaia2.daemon").info("SIGTERM: exiting")
    os._exit(143)


def main() -> int:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    _setup_logging()
    runtime = os.environ.get("GAIA2_RUNTIME", "none")
    timeout_s = float(os.environ.get("GAIA2_SCENARIO_TIMEOUT") or 0) or None
    status = StatusBoard(paths.OUTPUT_DIR / "daemon_status.json", None, runtime)
    recorder = EventRecorder(paths.OUTPUT_DIR / "events.jsonl")
    state = DaemonState(runtime=runtime, status=status, recorder=recorder)
    serve("0.0.0.0", paths.ADAPTER_PORT, ADAPTER_ROUTES, state, "adapter")
    serve(paths.TOOLS_HOST, paths.TOOLS_PORT, TOOL_ROUTES, state, "tools")

    started = time.perf_counter()
    try:
        state.loaded = load_scenario(paths.SCENARIO_FILE)
    except ScenarioLoadError as exc:
        state.load_error = str(exc)
        status.update(status="error", error=str(exc))
        log.error("%s", exc)
        return _linger(state, timeout_s)
    status.update(scenario_id=state.loaded.scenario_id)
    log.info("scenario %s loaded in %.2fs", state.loaded.scenario_id, time.perf_counter() - started)

    session = Session(state.loaded, recorder, status, timeout_s)
    session.start()
    state.session = session
    install_app_commands(session.toolbox.specs() if session.toolbox else [], paths.BIN_DIR)

    agent = None
    command = agent_command(runtime)
    if command is not None:
        agent = AgentProcess(command, paths.OUTPUT_DIR / "agent.log", on_exit=session.agent_exited)
        agent.start()
    state.ready.set()
    log.info("ready: runtime=%s turns=%s", runtime, session.nb_turns)

    session.done.wait()
    if agent is not None:
        agent.stop(grace_s=3.0)
    verdict = dict(session.verdict or {"status": "error", "error": "session ended without a verdict"})
    trace = paths.AGENT_HOME / "trace.jsonl"
    if trace.is_file():
        shutil.copyfile(trace, paths.OUTPUT_DIR / "trace.jsonl")
    (paths.OUTPUT_DIR / "agent_response.txt").write_text(verdict.get("agent_response") or "", encoding="utf-8")
    recorder.close()
    # Published last: a final status tells the runner every artifact is complete.
    status.update(**verdict)
    log.info("finished: status=%s judgment=%s error=%s", verdict["status"], verdict.get("judgment"), verdict.get("error"))
    return _linger(state, timeout_s)


def _linger(state: DaemonState, timeout_s: float | None) -> int:
    """Keep answering /status until the runner collects and removes us, but never forever."""
    limit = float(os.environ.get("GAIA2_LINGER_SECONDS", "600"))
    time.sleep(limit)
    return 0 if state.load_error is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
