"""Daemon entry point: serve the contract, load the scenario, start the clock and the agent runtime."""

from __future__ import annotations

import logging
import os
import secrets
import signal
import sys
import threading
import time
from typing import Any

from gaia2_contract import constants as contract

from .. import places
from .agent.limits import use_private_tmp
from .agent.output_caps import LogBudget
from .agent.process import agent_command
from .agent.watchdog import Limits, Watchdog
from .finish import finish_run
from .http.routes import ADAPTER_PUBLIC_ROUTES, ADAPTER_ROUTES, TOOL_ROUTES, DaemonState
from .http.server import serve
from .loader import preload
from .session.recorder import EventRecorder
from .session.status import StatusBoard
from .startup import NotStarted, start_run

log = logging.getLogger("gaia2.daemon")


def _setup_logging() -> None:
    """Log to daemon.log in the output (collected by the runner) and to stderr (podman logs)."""
    places.OUTPUT_PATH.mkdir(parents=True, exist_ok=True)
    handlers: list[logging.Handler] = [
        logging.FileHandler(places.OUTPUT_PATH / contract.DAEMON_LOG_FILE, encoding="utf-8"),
        logging.StreamHandler(sys.stderr),
    ]
    budget = LogBudget()  # lines the agent can trigger must not fill the output (agent/output_caps.py)
    for handler in handlers:
        handler.addFilter(budget)
    level = os.environ.get("GAIA2_LOG_LEVEL", "INFO").upper()
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", handlers=handlers
    )
    # ARE logs every tick at INFO; keep its chatter out of the daemon log unless asked for.
    logging.getLogger("are").setLevel(os.environ.get("GAIA2_ARE_LOG_LEVEL", "WARNING").upper())


def _exit_on_sigterm(_signum: int, _frame: Any) -> None:
    # As PID 1 the daemon gets no default SIGTERM action: exit at once so `podman stop` is quick.
    logging.getLogger("gaia2.daemon").info("SIGTERM: exiting")
    os._exit(143)


def _adapter_token() -> str:
    """The runner's token, taken out of our environment so no child process inherits it.

    Without one, a token nobody knows: the adapter then answers only a bare /health (fail closed).
    """
    token = os.environ.pop(contract.ENV_ADAPTER_TOKEN, "").strip()
    if not token:
        log.warning(
            "%s is not set: the adapter API refuses every request but GET /health", contract.ENV_ADAPTER_TOKEN
        )
        token = secrets.token_urlsafe(32)
    return token


def main() -> int:
    """Serve both APIs at once (so /health answers while loading), then run the scenario to a verdict."""
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    _setup_logging()
    use_private_tmp()
    runtime = os.environ.get(contract.ENV_RUNTIME, "none")
    state = DaemonState(
        runtime=runtime,
        status=StatusBoard(places.OUTPUT_PATH / contract.STATUS_FILE, None, runtime),
        recorder=EventRecorder(places.OUTPUT_PATH / contract.EVENTS_FILE),
        serves_oracle=runtime == "oracle" and not os.environ.get(contract.ENV_AGENT_COMMAND),
        warm=os.environ.get(contract.ENV_WARM) == "1",
    )
    watchdog = Watchdog(Limits.from_env(os.environ, _scenario_timeout()))
    finished = threading.Event()  # set once the final files are written
    _serve(state, watchdog)
    watchdog.start(lambda final, reason: _cut_short(state, final, reason), finished)

    try:
        command = agent_command(runtime)
    except SystemExit as exc:  # GAIA2_AGENT_COMMAND or GAIA2_RUNTIME unusable: the run's error, one line
        return _refuse(state, watchdog, finished, str(exc.code))
    if state.warm and not _await_scenario(state, watchdog):
        return _linger(state, watchdog, finished)  # the runner left before it gave us a scenario
    try:
        with watchdog.loading():
            session, agent, relays = start_run(state, watchdog, command, _scenario_timeout())
    except NotStarted as exc:
        if exc.reason is None:  # the runner left while ARE was loading: do not start the clock
            return _linger(state, watchdog, finished)
        return _refuse(state, watchdog, finished, exc.reason)
    state.ready.set()
    log.info("ready: runtime=%s turns=%s", runtime, session.nb_turns)

    session.done.wait()
    verdict = finish_run(state, session, agent, relays)
    log.info(
        "finished: status=%s judgment=%s error=%s",
        verdict["status"],
        verdict.get("judgment"),
        verdict.get("error"),
    )
    return _linger(state, watchdog, finished)


def _scenario_timeout() -> float | None:
    return float(os.environ.get(contract.ENV_SCENARIO_TIMEOUT) or 0) or None


def _await_scenario(state: DaemonState, watchdog: Watchdog) -> bool:
    """A warm container: do the imports a load needs, then wait for the runner's POST /assign (its
    scenario is copied in by then). Its variables join our environment (the agent inherits them)
    and the watchdog's deadline restarts from now. False when the watchdog fired first. The imports
    get no loading allowance: a spare too starved to hear its runner ends, and its run starts cold
    (a killed runner's spares end within the idle timeout)."""
    started = time.perf_counter()
    try:
        preload()
        if os.environ.get(contract.ENV_AGENT_PROVIDER):  # an agent with a model: its relay's imports
            from . import relay  # noqa: F401
    except Exception:  # noqa: BLE001 - the load reports the same failure as the run's error
        log.exception("preloading ARE failed")
    log.info("warm: imports done in %.2fs, waiting for a scenario", time.perf_counter() - started)
    while not state.assigned.wait(0.5):
        if watchdog.expired.is_set():
            return False
    os.environ.update(state.assignment or {})
    watchdog.rearm(Limits.from_env(os.environ, _scenario_timeout()))
    log.info("assigned: deadline %s s from now", watchdog.limits.deadline_s)
    return True


def _serve(state: DaemonState, watchdog: Watchdog) -> None:
    """Both APIs, each on its own port. Only the runner's requests (those with the adapter token)
    feed the watchdog: the agent can reach the adapter port, and must not keep an abandoned
    container alive."""
    log.info("lifetime: idle timeout %s s, deadline %s s", watchdog.limits.idle_s, watchdog.limits.deadline_s)
    serve(
        "0.0.0.0",
        places.LISTEN_ADAPTER_PORT,
        ADAPTER_ROUTES,
        state,
        "adapter",
        token=_adapter_token(),
        public_routes=ADAPTER_PUBLIC_ROUTES,
        on_request=watchdog.touch,
    )
    serve(contract.TOOLS_HOST, places.LISTEN_TOOLS_PORT, TOOL_ROUTES, state, "tools")


def _cut_short(state: DaemonState, final: str, reason: str) -> None:
    """The watchdog fired: end the running scenario (main() then writes the files), or, before it
    runs, publish the reason as the final status."""
    if state.session is not None:
        state.session.end(final, reason)
    else:
        state.status.update(status=final, error=reason)


def _refuse(state: DaemonState, watchdog: Watchdog, finished: threading.Event, reason: str) -> int:
    """The run cannot start (its scenario, settings or agent command): its final status is an error
    with this one line, the runner's reason for the run."""
    state.load_error = reason
    state.status.update(status="error", error=reason)
    log.error("%s", reason)
    return _linger(state, watchdog, finished)


def _linger(state: DaemonState, watchdog: Watchdog, finished: threading.Event) -> int:
    """Keep answering /status until the runner collects and removes us, or the watchdog says it
    never will (without any limit configured: at most GAIA2_LINGER_SECONDS, default 600)."""
    finished.set()
    limits = watchdog.limits
    unbounded = limits.idle_s is None and limits.deadline_s is None
    watchdog.expired.wait(float(os.environ.get("GAIA2_LINGER_SECONDS", "600")) if unbounded else None)
    return 0 if state.load_error is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
