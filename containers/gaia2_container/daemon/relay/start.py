"""Starting the agent's model relay from the run's environment: the credential the agent gets
in place of its key, what the runner configured, and the relay in front of the provider."""

from __future__ import annotations

from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import urls

from ... import budget
from ..provider.faults import RunnerSetup
from ..provider.ledger import ProviderLedger
from .handler import serve_relay
from .key import RunCredential, new_placeholder
from .proxy import RecordOutcome, Relay
from .trace import RelayTrace


def run_credential(environ: dict[str, str] | Any) -> RunCredential:
    """The run's credential: the configured key (None: a keyless endpoint) and a fresh placeholder
    the agent gets in its place."""
    return RunCredential(new_placeholder(), environ.get(contract.ENV_AGENT_API_KEY) or None)


def runner_setup(environ: dict[str, str] | Any, credential: RunCredential) -> RunnerSetup:
    """What the runner configured for the agent's provider, as the ledger checks requests against it."""
    from ...runtimes.harness.driver import NO_KEY

    return RunnerSetup(
        model=(environ.get(contract.ENV_AGENT_MODEL) or "").strip() or None,
        agent_key=credential.placeholder,
        keyless=credential.key is None,
        keyless_placeholders=frozenset({NO_KEY}),
    )


def start_for_agent(
    environ: dict[str, str] | Any,
    credential: RunCredential,
    record: RecordOutcome | None = None,
    defaults: dict[str, str] | None = None,
    trace_path: Any = None,
    ledger: ProviderLedger | None = None,
) -> tuple[Relay | None, dict[str, str]]:
    """Start the relay in front of the agent's configured provider; returns it and the variables
    that point the agent at it, the placeholder for its key included ((None, {}) when the agent
    names no provider: it then holds no key at all). `defaults`: the
    upstream per provider without a base URL (the built-in LLM runtime's when None). With
    `trace_path` it records every call there (`relay.trace`). A request waits for its answer at
    most the scenario's call window (budget.py), so an unanswered one is recorded in time."""
    provider = (environ.get(contract.ENV_AGENT_PROVIDER) or "").strip().lower()
    if not provider:
        return None, {}
    if defaults is None:
        defaults = urls.API_BASE_URLS

    upstream = (environ.get(contract.ENV_AGENT_BASE_URL) or defaults.get(provider, "")).strip().rstrip("/")
    if not upstream:
        return None, {}
    trace = RelayTrace(trace_path, provider) if trace_path is not None else None
    timeout = budget.relay_timeout(budget.scenario_timeout(environ))
    relay = Relay(upstream, record, timeout_s=timeout, trace=trace, ledger=ledger, credential=credential)
    serve_relay(relay, "127.0.0.1", contract.RELAY_PORT)
    return relay, {
        contract.ENV_AGENT_BASE_URL: f"http://127.0.0.1:{contract.RELAY_PORT}",
        contract.ENV_AGENT_PUBLIC_BASE_URL: upstream,
        contract.ENV_AGENT_API_KEY: credential.placeholder,
    }
