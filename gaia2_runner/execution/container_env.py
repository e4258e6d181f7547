"""The environment of a container (the GAIA2_* variables the daemon and the agent read), built in
one place from the typed config.

A run's settings (`--time-speed`, the agent, the judge, `--env` …) go one way: the command line or
TOML is parsed into a `RunConfig` (config/), the plan turns it into variables here once, with the
API keys resolved (execution/plan.py), and each container started gets those plus its own lifetime
variables, again from here (execution/scenario_run.py, preflight.py, image_check.py), before
sandbox/sandbox.py adds the per-container adapter token.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path

from gaia2_contract import constants as contract
from gaia2_contract import providers
from gaia2_runner.config.defaults import (
    COLLECT_GRACE_S,
    DEFAULT_HEALTH_TIMEOUT_S,
    DEFAULT_SIM_GENERATION_TIME,
    DEFAULT_TIME_SPEED,
    MIN_IDLE_TIMEOUT_S,
    RUNNER_GRACE_S,
)
from gaia2_runner.config.model import RunConfig
from gaia2_runner.config.secrets import PROXY_VARS, resolve_key
from gaia2_runner.errors import Gaia2Error

FORWARDED_ENV_PREFIXES = (contract.AGENT_ENV_PREFIX, contract.JUDGE_ENV_PREFIX)  # host variables passed on
CA_BUNDLE_ENV = "GAIA2_CA_BUNDLE"  # a host file every client in the container must trust
CA_ENV_VARS = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def container_env(
    config: RunConfig | None,
    environ: Mapping[str, str] | None = None,
    *,
    scenario_timeout: float | None = None,
    health_timeout: float = DEFAULT_HEALTH_TIMEOUT_S,
    runtime: str | None = None,
    extra: Mapping[str, str] | None = None,
    judge_only: bool = False,
) -> dict[str, str]:
    """The container's variables, secrets included (they are only ever given to containers).

    `config`: the run's settings, API keys resolved from `environ` (default os.environ); a run
    with an agent needs a judge. `judge_only`: just the judge's (re-judging a saved trace).
    `scenario_timeout`: a container about to start: the host's GAIA2_AGENT_*/GAIA2_JUDGE_*
    variables, its lifetime (below), `runtime`, then `extra` (the plan's variables, or
    check-image's `--env`), which wins; the CA bundle's variables unless set.

    The lifetime variables make a container end itself once this runner is gone: after
    GAIA2_IDLE_TIMEOUT seconds without a request carrying the adapter token (a fresh secret per
    container, sandbox/sandbox.py), and at GAIA2_DEADLINE whatever happens: later than this runner's
    own deadline (health wait + run timeout + grace) plus time to collect."""
    environ = os.environ if environ is None else environ
    env: dict[str, str] = {}
    if scenario_timeout is not None:
        env.update({k: v for k, v in environ.items() if k.startswith(FORWARDED_ENV_PREFIXES)})
        env.update(_lifetime(scenario_timeout, health_timeout, environ))
        if runtime:
            env[contract.ENV_RUNTIME] = runtime
    if config is not None:
        env.update(_judge(config, environ) if judge_only else _run(config, environ))
    env.update(extra or {})
    if scenario_timeout is not None and ca_bundle_source(environ) is not None:
        for var in CA_ENV_VARS:
            env.setdefault(var, contract.CA_BUNDLE_PATH)
    return env


def _run(config: RunConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The run's settings as variables: runtime, agent, judge, noise, token budget, time speed, `--env`."""
    agent, run = config.agent, config.run
    env: dict[str, str] = {k: environ[k] for k in PROXY_VARS if environ.get(k)}
    if agent.provider == providers.ORACLE:
        env[contract.ENV_RUNTIME] = agent.runtime or "oracle"
    else:
        env[contract.ENV_RUNTIME] = agent.runtime or "agent"
        if not config.judge.model:
            raise Gaia2Error(
                "agent runs need a judge for ARE's LLM soft checks: set [judge] provider and model "
                "(--judge-provider/--judge-model)"
            )
        env[contract.ENV_AGENT_PROVIDER] = agent.provider
        for var, value in (
            (contract.ENV_AGENT_MODEL, agent.model),
            (contract.ENV_AGENT_BASE_URL, agent.base_url),
        ):
            if value:
                env[var] = value
        if agent.options:
            env[contract.ENV_AGENT_OPTIONS] = json.dumps(agent.options)
        key = resolve_key(
            agent.provider, agent.api_key, agent.api_key_env, environ, "agent", config.where("api_key_env")
        )
        if key:
            env[contract.ENV_AGENT_API_KEY] = key
    env.update(_judge(config, environ))
    env.update(_a2a(config, environ))
    if run.noise:
        env[contract.ENV_NOISE] = "1"
    if run.max_tokens is not None:
        env[contract.ENV_TOKEN_BUDGET] = str(run.max_tokens)
    if run.time_speed != DEFAULT_TIME_SPEED:  # the daemon's default is ARE's real time
        env[contract.ENV_TIME_SPEED] = repr(float(run.time_speed))
    if (
        run.sim_generation_time != DEFAULT_SIM_GENERATION_TIME
    ):  # normalised by config/load.py; the daemon's default is ARE's
        env[contract.ENV_SIM_GENERATION_TIME] = run.sim_generation_time
    env.update(agent.env)  # --env wins, as documented
    return env


def _a2a(config: RunConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """Agent2Agent's variables (none when off). The expert agents' model settings default to the
    agent's in the container; a provider of their own brings its own key."""
    agent = config.agent
    if not agent.a2a_app_prop:
        return {}
    env = {contract.ENV_A2A_APP_PROP: repr(float(agent.a2a_app_prop))}
    if agent.provider == providers.ORACLE:
        return env  # ARE's oracle acts on the apps themselves: no expert is ever asked
    if (agent.a2a_provider or agent.provider) not in providers.CHAT_COMPLETIONS:
        raise Gaia2Error(
            f"{config.where('a2a_app_prop')}: the expert agents run ARE's app agent on a chat completions "
            f"endpoint, and the agent's provider {agent.provider!r} is none: set --a2a-provider "
            f"({', '.join(providers.CHAT_COMPLETIONS)}) and --a2a-model"
        )
    own = agent.a2a_provider not in (None, agent.provider)
    for var, value in (
        (contract.ENV_A2A_PROVIDER, agent.a2a_provider if own else None),
        (contract.ENV_A2A_MODEL, agent.a2a_model),
        (contract.ENV_A2A_BASE_URL, agent.a2a_base_url),
    ):
        if value:
            env[var] = value
    if own:
        key = resolve_key(
            agent.a2a_provider, None, None, environ, "expert agents", config.where("a2a_provider")
        )
        if key:
            env[contract.ENV_A2A_API_KEY] = key
    return env


def _judge(config: RunConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The judge's variables (ARE's LLM soft checks), its key included; none without a model."""
    judge, env = config.judge, {}
    if judge.model:
        env[contract.ENV_JUDGE_MODEL] = judge.model
        env[contract.ENV_JUDGE_PROVIDER] = judge.provider or providers.DEFAULT
        if judge.base_url:
            env[contract.ENV_JUDGE_BASE_URL] = judge.base_url
        key = resolve_key(
            judge.provider,
            judge.api_key,
            judge.api_key_env,
            environ,
            "judge",
            config.where("judge_api_key_env"),
        )
        if key:
            env[contract.ENV_JUDGE_API_KEY] = key
    return env


def _lifetime(scenario_timeout: float, health_timeout: float, environ: Mapping[str, str]) -> dict[str, str]:
    deadline = health_timeout + scenario_timeout + RUNNER_GRACE_S + COLLECT_GRACE_S
    return {
        contract.ENV_ADAPTER_PORT: str(contract.ADAPTER_PORT),
        contract.ENV_SCENARIO_TIMEOUT: str(int(math.ceil(scenario_timeout))),
        contract.ENV_IDLE_TIMEOUT: f"{idle_timeout(environ):g}",
        contract.ENV_DEADLINE: str(int(math.ceil(deadline))),
    }


def idle_timeout(environ: Mapping[str, str] | None = None) -> float:
    """GAIA2_IDLE_TIMEOUT from the host environment (0 disables the container's watchdog), else
    the contract's default."""
    raw = (os.environ if environ is None else environ).get(contract.ENV_IDLE_TIMEOUT, "").strip()
    if not raw:
        return float(contract.DEFAULT_IDLE_TIMEOUT_S)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (value == 0 or value >= MIN_IDLE_TIMEOUT_S) or math.isinf(value):
        raise Gaia2Error(
            f"{contract.ENV_IDLE_TIMEOUT}={raw} is not a number of seconds >= {MIN_IDLE_TIMEOUT_S:g} "
            "(or 0 to let containers of a dead runner run to their deadline): fix or unset it"
        )
    return value


def ca_bundle_source(environ: Mapping[str, str] | None = None) -> Path | None:
    """$GAIA2_CA_BUNDLE, checked: a TLS-intercepting proxy must be trusted by the agent and the judge alike."""
    source = (os.environ if environ is None else environ).get(CA_BUNDLE_ENV)
    if not source:
        return None
    if not Path(source).is_file():
        raise Gaia2Error(f"{CA_BUNDLE_ENV}={source} is not a file: fix the path or unset it")
    return Path(source)


def ca_bundle_files(environ: Mapping[str, str] | None = None) -> dict[str, bytes]:
    """The CA bundle to copy into the container (its variables point there: `container_env`)."""
    source = ca_bundle_source(environ)
    return {} if source is None else {contract.CA_BUNDLE_PATH: source.read_bytes()}
