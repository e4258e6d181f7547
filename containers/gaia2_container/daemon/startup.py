"""Start-up wiring of one run (start_run): the scenario loaded, the session on its clocks with its
expert agents (build_session), then the agent process behind its model relay (start_agent).
main() calls start_run and nothing deeper; each piece they wire lives in its own room."""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING, Any

from gaia2_contract import constants as contract
from gaia2_contract import urls

from .. import places
from .a2a import A2AError, A2ASettings, ExpertAgents
from .agent.egress import close_agent_egress
from .agent.process import AgentProcess, agent_identity
from .agent.watchdog import Watchdog
from .clock.generation import GenerationClock, setting_from_env
from .clock.process import ProcessClock, fakes_agent
from .clock.sim import SimClock, parse_speed
from .http.routes import DaemonState
from .loader import ScenarioLoadError, load_scenario
from .provider.faults import RunnerSetup
from .provider.ledger import ProviderLedger
from .provider.probe import agent_probe
from .session.app_commands import install_app_commands
from .session.core import Session
from .session.recorder import EventRecorder
from .session.status import StatusBoard

if TYPE_CHECKING:  # the relay (and its HTTP client) is imported when a run starts one: not the oracle
    from .relay import Relay

log = logging.getLogger("gaia2.daemon")


def build_session(state: DaemonState, timeout_s: float | None) -> tuple[Session, Relay | None]:
    """The loaded scenario's session, started on its simulated clock, with its expert agents and
    their relay (None without Agent2Agent); published as `state.session`. ValueError for an
    unusable clock setting, A2AError for unusable expert settings: the run's one-line error."""
    speed = parse_speed(os.environ.get(contract.ENV_TIME_SPEED))
    generation_time = setting_from_env(os.environ.get(contract.ENV_SIM_GENERATION_TIME))
    # The built-in oracle never waits in real time: it moves the clock itself (/oracle/advance).
    realtime = os.environ.get(contract.ENV_ORACLE_REALTIME, "") in ("1", "true", "yes")
    clock = SimClock(speed=speed, manual=state.serves_oracle and not realtime)
    log.info("simulated clock: %s, speed %g", clock.mode, speed)
    status = state.status
    session = Session(state.loaded, state.recorder, status, timeout_s, clock=clock)
    session.a2a, experts_relay = _expert_agents(state.serves_oracle, state.recorder, session, status)
    session.start()
    if session.a2a is not None:  # which apps became expert agents (ARE's seeded choice)
        status.update(a2a={"app_prop": session.a2a.settings.app_prop, "apps": session.a2a.expert_apps()})
    state.session = session
    session.generation = GenerationClock(generation_time, session.env, manual=clock.manual)
    status.update(sim_generation_time=session.generation.summary())
    return session, experts_relay


def install_commands(session: Session) -> None:
    """The apps' tools as commands in the agent's PATH (session/app_commands.py)."""
    install_app_commands(session.toolbox.specs() if session.toolbox else [], places.BIN_PATH)


def start_agent(
    state: DaemonState, session: Session, command: Any, experts_relay: Relay | None
) -> tuple[AgentProcess | None, Relay | None]:
    """Start the agent (none without a command) behind its model relay, its network closed to all
    but loopback; returns the process and the relay (None when the agent has no provider)."""
    if command is None:
        return None, None
    custom = bool(os.environ.get(contract.ENV_AGENT_COMMAND))
    harness = state.runtime == "harness" and not custom
    relay, relay_env = _agent_relay(state, session, harness, custom)
    if relay is not None:  # the agent's model calls hold the clock
        # The expert sub-agents' do not: ARE's AppAgentBuilder gives app agents no pause/resume
        # nor generation-time config, so their generation runs on the clock there too.
        relay.generation = session.generation
        session.provider_witness = relay.provider_unavailable
        session.provider_note = relay.ledger.notes
    if experts_relay is not None:
        _share_with_experts(session, relay, experts_relay)
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
    # Loopback only for the agent's uid (the relay, the tool API), before it runs: daemon/agent/egress.py.
    state.status.update(egress=close_agent_egress(agent_identity().get("user")))
    agent.start()
    return agent, relay


def _agent_relay(
    state: DaemonState, session: Session, harness: bool, custom: bool
) -> tuple[Relay | None, dict[str, str]]:
    """The agent's model relay and the environment that points the agent at it."""
    from .relay import run_credential, runner_setup, start_for_agent

    recorder = state.recorder
    credential = run_credential(os.environ)  # the agent gets its placeholder, never the key
    return start_for_agent(
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
        trace_path=_relay_trace_path(state.runtime),
        ledger=_provider_ledger(
            session,
            state.status,
            runner_setup(os.environ, credential),
            paced=state.runtime == "agent" and not custom,
        ),
    )


def _share_with_experts(session: Session, relay: Relay | None, experts_relay: Relay) -> None:
    """One --max-tokens for the agent and its experts; the expert agents' provider failing is no
    model's failure either."""
    if relay is not None:
        relay.ledger.share_budget(experts_relay.ledger)
    witnesses = [w for w in (session.provider_witness, experts_relay.provider_unavailable) if w is not None]
    session.provider_witness = lambda: next((down for w in witnesses if (down := w())), None)


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
        from .relay import experts as expert_relay

        relay, placeholder, endpoint = expert_relay.start(
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


class NotStarted(Exception):
    """The run cannot start: `reason` is its one-line error; None when the watchdog fired first."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason)
        self.reason = reason


def start_run(
    state: DaemonState, watchdog: Watchdog, command: Any, timeout_s: float | None
) -> tuple[Session, AgentProcess | None, list[Relay | None]]:
    """Load the scenario, build its session and start the agent: (session, agent, relays).
    NotStarted when the run cannot start."""
    started = time.perf_counter()
    try:
        state.loaded = load_scenario(places.SCENARIO_PATH)
    except ScenarioLoadError as exc:
        raise NotStarted(str(exc)) from None
    if watchdog.expired.is_set():
        raise NotStarted(None)
    state.status.update(scenario_id=state.loaded.scenario_id)
    log.info("scenario %s loaded in %.2fs", state.loaded.scenario_id, time.perf_counter() - started)
    try:
        session, expert_relay = build_session(state, timeout_s)
    except (ValueError, A2AError) as exc:
        raise NotStarted(str(exc)) from None
    if watchdog.expired.is_set():  # fired between the check above and here
        session.end(watchdog.status, watchdog.reason or "runner gone")
    install_commands(session)
    agent, relay = start_agent(state, session, command, expert_relay)
    return session, agent, [relay, expert_relay]
