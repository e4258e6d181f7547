"""Agent2Agent, as ARE's `--a2a_app_prop`: a seeded share of the scenario's apps become expert agents.

ARE's ScenarioRunner does it between making the Environment and running the scenario
(`scenario_runner._apply_a2a_config`): with `random.Random(scenario.seed)` it samples
int(len(apps) * prop) apps (never InternalContacts, AgentUserInterface or SystemApp), registers the
originals with the Environment and puts in their place an `AppAgent` of the same name, whose one
tool `expert_agent(task)` runs ARE's app agent (its prompt, its ReAct JSON loop, at most 80 steps)
holding the original app's tools. We call that very function (Session.start), so the choice, the
tool and the sub-agent are ARE's; only the sub-agent's engine is ours to point: ARE's LiteLLMEngine
on the expert relay (relay/experts.py), as runtimes/are_default points the main agent's. What the
sub-agents do is recorded into events.jsonl under the `expert_agent` call that spawned them
(`call_id` on that call; `parent_call_id` and `a2a_app` on each nested `tool_call` / `llm_call`).

The oracle: ARE's oracle events act on the original apps (their functions are bound to them), so
an oracle run with A2A is the oracle run, apps replaced or not; our oracle reaches the originals by
name, so its tool list keeps them (`keep_app_tools`) beside the expert tools.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import providers

from ..jsonable import to_jsonable

log = logging.getLogger("gaia2.a2a")

EXPERT_CLASS = "AppAgent"  # ARE's class of a replaced app (are.simulation.agents.default_agent.app_agent)
CALL_ID_PREFIX = "a2a-"


SCENARIO_OVER = "the scenario is over: the expert agents were stopped for the final judgment"


class A2AError(Exception):
    """A2A settings the daemon cannot use: one line, the run's error."""


class ExpertsStopped(RuntimeError):
    """An app tool a sub-agent called after the final judgment started (ExpertAgents.stop)."""


@dataclass(frozen=True)
class A2ASettings:
    """GAIA2_A2A_*; each unset one is the agent's (as ARE falls back to the main model's)."""

    app_prop: float
    provider: str
    model: str
    base_url: str | None
    key: str | None = field(default=None, repr=False)  # a secret: never logged

    @classmethod
    def from_env(cls, environ: Mapping[str, str], needs_model: bool = True) -> A2ASettings | None:
        """None when A2A is off. `needs_model`: the sub-agents may be asked (any runtime but the
        built-in oracle, which never calls an expert)."""
        raw = (environ.get(contract.ENV_A2A_APP_PROP) or "").strip()
        if not raw:
            return None
        try:
            prop = float(raw)
        except ValueError:
            prop = -1.0
        if not 0.0 <= prop <= 1.0:
            raise A2AError(f"{contract.ENV_A2A_APP_PROP}={raw[:40]!r} is not a fraction from 0 to 1")
        if prop == 0.0:
            return None
        own = bool((environ.get(contract.ENV_A2A_PROVIDER) or "").strip())
        provider = (
            (environ.get(contract.ENV_A2A_PROVIDER) or environ.get(contract.ENV_AGENT_PROVIDER) or "")
            .strip()
            .lower()
        )
        model = (environ.get(contract.ENV_A2A_MODEL) or environ.get(contract.ENV_AGENT_MODEL) or "").strip()
        base_url = (
            environ.get(contract.ENV_A2A_BASE_URL)
            or (None if own else environ.get(contract.ENV_AGENT_BASE_URL))
            or ""
        ).strip() or None
        key = (
            environ.get(contract.ENV_A2A_API_KEY)
            or (None if own else environ.get(contract.ENV_AGENT_API_KEY))
            or None
        )
        if needs_model:
            if provider not in providers.CHAT_COMPLETIONS:
                raise A2AError(
                    f"the expert agents' provider {provider or '(none)'!r}: ARE's app agent runs here on a "
                    f"chat completions endpoint: use {', '.join(providers.CHAT_COMPLETIONS)} (--a2a-provider)"
                )
            if not model:
                raise A2AError("the expert agents have no model: set --a2a-model (or the agent's --model)")
        return cls(prop, provider, model, base_url, key)


class ExpertAgents:
    """Applies ARE's A2A to a scenario and records what its sub-agents do."""

    def __init__(
        self,
        settings: A2ASettings,
        record: Callable[..., int],
        endpoint: str | None,
        placeholder: str | None,
        keep_app_tools: bool = False,
    ) -> None:
        self.settings = settings
        self._record = record  # EventRecorder.record
        self.endpoint = endpoint  # the expert relay
        self._placeholder = placeholder
        self.keep_app_tools = keep_app_tools
        self.replaced: list[Any] = []  # the original apps, in the order ARE sampled them
        self.experts: list[Any] = []  # their AppAgents
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._parent: tuple[str, str] | None = None  # (call_id, app) of the expert call in progress
        # The final judgment stops the sub-agents (stop()): no app tool runs after it, and the one
        # running then finishes before the judge looks (quiet()).
        self._stopped = threading.Event()
        self._tool_lock = threading.Lock()
        self.on_stop: Callable[[], None] | None = None  # the expert relay's refusal (main.py)

    # ---- setup (Session.start, between the Environment and env.run, as ARE's runner) -------------
    def apply(self, scenario: Any, env: Any) -> None:
        from are.simulation.agents.agent_builder import AppAgentBuilder
        from are.simulation.agents.agent_config_builder import AppAgentConfigBuilder
        from are.simulation.agents.default_agent.app_agent import AppAgent
        from are.simulation.scenario_runner import _apply_a2a_config
        from are.simulation.scenarios.config import ScenarioRunnerConfig

        from ..runtimes.are_default.settings import ARE_PROVIDER, LITELLM_PREFIX

        before = list(scenario.apps or [])
        config = ScenarioRunnerConfig(
            a2a_app_prop=self.settings.app_prop,
            a2a_model=LITELLM_PREFIX + self.settings.model,
            a2a_model_provider=ARE_PROVIDER,
            a2a_endpoint=self.endpoint,
        )
        try:
            _apply_a2a_config(
                config,
                scenario,
                env,
                AppAgentConfigBuilder(),
                AppAgentBuilder(llm_engine_builder=_relay_engine_builder(self._placeholder)),
            )
        except ValueError as exc:  # ARE's own refusal (e.g. no app it may replace): the run's one-line error
            raise A2AError(
                f"Agent2Agent (--a2a-app-prop {self.settings.app_prop:g}) cannot be applied to this "
                f"scenario: {exc}"
            ) from exc
        kept = {id(app) for app in scenario.apps or []}
        self.replaced = [app for app in before if id(app) not in kept]
        self.experts = [app for app in scenario.apps or [] if isinstance(app, AppAgent)]
        for expert in self.experts:
            for tool in expert.app_agent.tools.values():
                if hasattr(tool, "app_tool"):  # the app's tools (AppToolAdapter), not final_answer
                    self._observe(expert.name, tool)
        log.info(
            "Agent2Agent (prop %g): expert agents for %s",
            self.settings.app_prop,
            ", ".join(app.name for app in self.replaced) or "no app",
        )

    def extra_tools(self) -> list[Any]:
        """The replaced apps' own tools, for the oracle only (ARE's oracle acts on them)."""
        if not self.keep_app_tools:
            return []
        return [tool for app in self.replaced for tool in app.get_tools()]

    def expert_apps(self) -> list[str]:
        return [app.name for app in self.replaced]

    # ---- nesting ------------------------------------------------------------------------------
    @contextmanager
    def expert_call(self, app_class: str, app: str) -> Iterator[str | None]:
        """Around one tool call of the agent: an `expert_agent` call gets a call id, under which
        everything its sub-agent does is recorded; any other call gets None."""
        if app_class != EXPERT_CLASS:
            yield None
            return
        call_id = f"{CALL_ID_PREFIX}{next(self._ids)}"
        with self._lock:
            self._parent = (call_id, app)
        try:
            yield call_id
        finally:
            with self._lock:
                self._parent = None

    def in_call(self) -> bool:
        """An `expert_agent` call of the agent is in progress (its sub-agent may be running)."""
        with self._lock:
            return self._parent is not None

    # ---- the final judgment -------------------------------------------------------------------
    def stop(self) -> None:
        """The final judgment starts: every sub-agent stops at its next step (ARE's BaseAgent.stop),
        its relay refuses further model calls and its app tools raise, so nothing a sub-agent does
        outlives the deadline or changes what the judge looks at."""
        self._stopped.set()
        if self.on_stop is not None:
            self.on_stop()
        for expert in self.experts:
            expert.app_agent.stop()

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Holds while the judge looks: an app tool a sub-agent is running finishes first, and
        (after stop()) no other starts."""
        with self._tool_lock:
            yield

    def nesting(self) -> dict[str, Any]:
        with self._lock:
            parent = self._parent
        return {"parent_call_id": parent[0] if parent else None, "a2a_app": parent[1] if parent else None}

    def record_llm_call(self, fields: dict[str, Any]) -> None:
        """One sub-agent model call, as the expert relay saw it (relay.experts.EventsTrace)."""
        self._record(contract.SUB_AGENT_CALL_KIND, None, **self.nesting(), **fields)

    def _observe(self, app: str, tool: Any) -> None:
        """Record each call the sub-agent makes (ARE's Tool.__call__ calls `forward`); never changes it."""
        inner = tool.forward
        app_tool = tool.app_tool

        def forward(*args: Any, **kwargs: Any) -> Any:
            with self._tool_lock:  # never while the judge looks (quiet())
                if self._stopped.is_set():
                    raise ExpertsStopped(SCENARIO_OVER)
                return observed(*args, **kwargs)

        def observed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            fields: dict[str, Any] = {
                "app": app_tool.app_name,
                "function": app_tool.func_name,
                "tool": tool.name,
                "args": kwargs if not args else {"args": list(args), **kwargs},
                "write": bool(app_tool.write_operation),
            }
            try:
                raw = inner(*args, **kwargs)
            except Exception as exc:
                self._record(
                    "tool_call",
                    None,
                    **self.nesting(),
                    **fields,
                    ok=False,
                    error=f"{type(exc).__name__}: {exc}",
                    duration_ms=round((time.perf_counter() - started) * 1000, 2),
                )
                raise
            self._record(
                "tool_call",
                None,
                **self.nesting(),
                **fields,
                ok=True,
                result=to_jsonable(raw),
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )
            return raw

        tool.forward = forward


def _relay_engine_builder(api_key: str | None) -> Any:
    """ARE's LLMEngineBuilder, whose engines send `api_key` (the expert relay's placeholder) instead
    of reading OPENAI_API_KEY from the daemon's environment, which the agent's process inherits."""
    from are.simulation.agents.llm.llm_engine_builder import LLMEngineBuilder

    class RelayEngineBuilder(LLMEngineBuilder):
        def _create_concrete_engine(self, engine_config: Any) -> Any:
            engine = super()._create_concrete_engine(engine_config)
            engine.model_config.api_key = api_key
            return engine

    return RelayEngineBuilder()
