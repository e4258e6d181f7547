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
from gaia2_contract import urls

from .. import places
from ..jsonable import encodable
from . import a2a_relay
from .a2a import A2AError, A2ASettings, ExpertAgents
from .agent_files import TRACE_CAP_BYTES, copy_agent_file
from .agent_process import AgentProcess, agent_command, agent_identity
from .app_commands import install_app_commands
from .are_dump import write_are_trace
from .egress import close_agent_egress
from .generation_clock import GenerationClock, setting_from_env
from .http_api import serve
from .limit_reasons import use_private_tmp
from .loader import ScenarioLoadError, load_scenario
from .output_caps import LogBudget
from .process_clock import ProcessClock, fakes_agent
from .provider_faults import RunnerSetup
from .provider_ledger import ProviderLedger
from .provider_probe import agent_probe
from .recorder import EventRecorder
from .relay import Relay, run_credential, runner_setup, start_for_agent
from .routes import ADAPTER_PUBLIC_ROUTES, ADAPTER_ROUTES, TOOL_ROUTES, DaemonState
from .session import Session
from .sim_clock import SimClock, parse_speed
from .status import StatusBoard
from .watchdog import Limits, Watchdog

log = logging.getLogger("gaia2.daemon")


def _setup_logging() -> None:
    """Log to daemon.log in the output (collected by the runner) and to stderr (podman logs)."""
    places.OUTPUT_PATH.mkdir(parents=True, exist_ok=True)
    handlers: list[logging.Handler] = [
        logging.FileHandler(places.OUTPUT_PATH / contract.DAEMON_LOG_FILE, encoding="utf-8"),
        logging.StreamHandler(sys.stderr),
    ]
    budget = LogBudget()  # lines the agent can trigger must not fill the output (output_caps.py)
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
    timeout_s = float(os.environ.get(contract.ENV_SCENARIO_TIMEOUT) or 0) or None
    status = StatusBoard(places.OUTPUT_PATH / contract.STATUS_FILE, None, runtime)
    recorder = EventRecorder(places.OUTPUT_PATH / contract.EVENTS_FILE)
    state = DaemonState(
        runtime=runtime,
        status=status,
        recorder=recorder,
        serves_oracle=runtime == "oracle" and not os.environ.get(contract.ENV_AGENT_COMMAND),
    )
    watchdog = Watchdog(Limits.from_env(os.environ, timeout_s))
    finished = threading.Event()  # set once the final files are written
    log.info("lifetime: idle timeout %s s, deadline %s s", watchdog.limits.idle_s, watchdog.limits.deadline_s)
    # Only the runner's requests (those with the adapter token) feed the watchdog: the agent can
    # reach the adapter port, and must not keep an abandoned container alive.
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
    watchdog.start(lambda final, reason: _cut_short(state, final, reason), finished)

    try:
        command = agent_command(runtime)
    except SystemExit as exc:  # GAIA2_AGENT_COMMAND or GAIA2_RUNTIME unusable: the run's error, one line
        return _refuse(state, watchdog, finished, str(exc.code))
    started = time.perf_counter()
    try:
        state.loaded = load_scenario(places.SCENARIO_PATH)
    except ScenarioLoadError as exc:
        return _refuse(state, watchdog, finished, str(exc))
    if watchdog.expired.is_set():  # the runner left while ARE was loading: do not start the clock
        return _linger(state, watchdog, finished)
    status.update(scenario_id=state.loaded.scenario_id)
    log.info("scenario %s loaded in %.2fs", state.loaded.scenario_id, time.perf_counter() - started)

    try:
        speed = parse_speed(os.environ.get(contract.ENV_TIME_SPEED))
        generation_time = setting_from_env(os.environ.get(contract.ENV_SIM_GENERATION_TIME))
    except ValueError as exc:
        return _refuse(state, watchdog, finished, str(exc))
    # The built-in oracle never waits in real time: it moves the clock itself (/oracle/advance).
    realtime = os.environ.get(contract.ENV_ORACLE_REALTIME, "") in ("1", "true", "yes")
    clock = SimClock(speed=speed, manual=state.serves_oracle and not realtime)
    log.info("simulated clock: %s, speed %g", clock.mode, speed)
    session = Session(state.loaded, recorder, status, timeout_s, clock=clock)
    try:
        session.a2a, expert_relay = _expert_agents(state.serves_oracle, recorder, session, status)
        session.start()
        if session.a2a is not None:  # which apps became expert agents (ARE's seeded choice)
            status.update(a2a={"app_prop": session.a2a.settings.app_prop, "apps": session.a2a.expert_apps()})
    except A2AError as exc:
        return _refuse(state, watchdog, finished, str(exc))
    state.session = session
    session.generation = GenerationClock(generation_time, session.env, manual=clock.manual)
    status.update(sim_generation_time=session.generation.summary())
    if watchdog.expired.is_set():  # fired between the check above and here
        session.end(watchdog.status, watchdog.reason or "runner gone")
    install_app_commands(session.toolbox.specs() if session.toolbox else [], places.BIN_PATH)

    agent = None
    relay = None
    if command is not None:
        custom = bool(os.environ.get(contract.ENV_AGENT_COMMAND))
        harness = runtime == "harness" and not custom
        credential = run_credential(os.environ)  # the agent gets its placeholder, never the key
        relay, relay_env = start_for_agent(
            os.environ,
            credential,
            record=lambda o, sim: recorder.record(
                "provider_call",
                session.sim_time(),
                url=o.url,
                http_status=o.status,
                error=o.error,
                duration_ms=round(o.duration_s * 1000, 1),
                burst=o.bursting,
                outcome=o.kind,
                **sim,
            ),
            defaults=urls.SDK_BASE_URLS if harness else None,
            trace_path=_relay_trace_path(runtime),
            ledger=_provider_ledger(
                session, status, runner_setup(os.environ, credential), paced=runtime == "agent" and not custom
            ),
        )
        if relay is not None:  # the agent's model calls hold the clock
            # The expert sub-agents' do not: ARE's AppAgentBuilder gives app agents no pause/resume
            # nor generation-time config, so their generation runs on the clock there too.
            relay.generation = session.generation
        if relay is not None:
            session.provider_witness = relay.provider_unavailable
            session.provider_note = relay.ledger.notes
        if expert_relay is not None and relay is not None:  # one --max-tokens for the agent and its experts
            relay.ledger.share_budget(expert_relay.ledger)
        if expert_relay is not None:  # the expert agents' provider failing is no model's failure either
            witnesses = [
                w for w in (session.provider_witness, expert_relay.provider_unavailable) if w is not None
            ]
            session.provider_witness = lambda: next((down for w in witnesses if (down := w())), None)
        if fakes_agent(custom or harness, os.environ):
            process_clock = ProcessClock(session.sim_time)
            process_clock.prepare()
            session.on_time = process_clock.update
            relay_env = {**relay_env, **process_clock.agent_env()}
        agent = AgentProcess(
            command,
            places.OUTPUT_PATH / contract.AGENT_LOG_FILE,
            on_exit=lambda code: session.agent_exited(code, agent.limit_reason()),
            env_overrides=relay_env,
        )
        session.make_room = agent.kill_all
        # Loopback only for the agent's uid (the relay, the tool API), before it runs: daemon/egress.py.
        status.update(egress=close_agent_egress(agent_identity().get("user")))
        agent.start()
    state.ready.set()
    log.info("ready: runtime=%s turns=%s", runtime, session.nb_turns)

    session.done.wait()
    if agent is not None:
        agent.stop(grace_s=3.0)
    for ledger in [r.ledger for r in (relay, expert_relay) if r is not None]:
        ledger.charge_in_flight()  # the account is published now: calls still out cost their reservation
    verdict = dict(session.verdict or {"status": "error", "error": "session ended without a verdict"})
    verdict["sim_generation_time"] = session.generation.summary()
    judge_fault = _judge_fault(state.loaded)
    if judge_fault and verdict.get("status") == "error":  # the job stops, as for the agent's provider
        verdict["judge_fault"] = {"kind": "configuration", "reason": judge_fault}
    _finish_trace(relay)
    (places.OUTPUT_PATH / contract.AGENT_RESPONSE_FILE).write_text(
        encodable(verdict.get("agent_response") or ""), encoding="utf-8"
    )
    write_are_trace(session, runtime, places.OUTPUT_PATH / contract.ARE_TRACE_FILE)
    recorder.close()
    # Published last: a final status tells the runner every artifact is complete.
    status.update(**verdict)
    log.info(
        "finished: status=%s judgment=%s error=%s",
        verdict["status"],
        verdict.get("judgment"),
        verdict.get("error"),
    )
    return _linger(state, watchdog, finished)


def _expert_agents(
    serves_oracle: bool, recorder: EventRecorder, session: Session, status: StatusBoard
) -> tuple[ExpertAgents | None, Relay | None]:
    """Agent2Agent (GAIA2_A2A_*), or (None, None) when off; A2AError for unusable settings. The
    expert relay is started unless the built-in oracle runs (it never asks an expert)."""
    settings = A2ASettings.from_env(os.environ, needs_model=not serves_oracle)
    if settings is None:
        return None, None
    relay = placeholder = endpoint = None
    if not serves_oracle:
        relay, placeholder, endpoint = a2a_relay.start(
            settings.provider,
            settings.model,
            settings.base_url,
            settings.key,
            os.environ,
            write=lambda fields: experts.record_llm_call(fields),
            on_fault=lambda reason: session.provider_fault(
                f"configuration fault of the expert agents' provider: {reason} (seen by the model relay)"
            ),
            on_change=lambda summary: status.update(a2a_provider=summary),
            token_budget=_token_budget(),
            on_budget=session.out_of_budget,
        )
    experts = ExpertAgents(settings, recorder.record, endpoint, placeholder, keep_app_tools=serves_oracle)
    if relay is not None:  # once the final judgment starts, no sub-agent model call leaves
        experts.on_stop = relay.refuse_all
    return experts, relay


def _provider_ledger(
    session: Session, status: StatusBoard, setup: RunnerSetup, paced: bool
) -> ProviderLedger:
    """The relay's ledger, acting on the run: a configuration fault ends it at once as an
    infrastructure error, a call refused past the token budget has it judged, and its counts go
    into the status (`provider`), where the runner reads rate limits, tokens and the fault."""
    return ProviderLedger(
        setup,
        token_budget=_token_budget(),
        on_change=lambda summary: status.update(provider=summary),
        on_fault=lambda reason: session.provider_fault(
            f"configuration fault: {reason} (seen by the model relay)"
        ),
        on_budget=session.out_of_budget,
        paced=paced,
        probe=agent_probe(os.environ, setup.model),
    )


def _judge_fault(loaded: Any) -> str | None:
    """The judge's configuration fault (its provider refused the runner's own probe too), else None."""
    trace = getattr(loaded, "judge_trace", None)
    return getattr(getattr(trace, "calls", None), "fault", None)


def _token_budget() -> int | None:
    """GAIA2_TOKEN_BUDGET (the runner checked it); None when unset or not a positive integer."""
    raw = os.environ.get(contract.ENV_TOKEN_BUDGET, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


def _relay_trace_path(runtime: str) -> Any:
    """Where the relay records the agent's model calls: the run's trace.jsonl, except for the
    built-in LLM runtime, which writes a richer trace of the same calls itself (attempts, usage)."""
    if runtime == "agent" and not os.environ.get(contract.ENV_AGENT_COMMAND):
        return None
    return places.OUTPUT_PATH / contract.TRACE_FILE


def _finish_trace(relay: Relay | None) -> None:
    """The relay's record is the trace when it recorded anything: the agent's own
    $HOME/trace.jsonl then is not collected, so it can neither replace nor hide the record.
    Otherwise (the built-in LLM runtime, no relay, a relay never used) the agent's file is copied,
    read as the agent, never through its links (agent_files), capped."""
    if relay is not None and relay.trace is not None and relay.trace.close():
        log.info(
            "trace.jsonl: %d calls recorded by the model relay; $HOME/%s not collected",
            relay.trace.lines,
            contract.TRACE_FILE,
        )
        return
    copy_agent_file(contract.TRACE_FILE, places.OUTPUT_PATH / contract.TRACE_FILE, TRACE_CAP_BYTES)


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
