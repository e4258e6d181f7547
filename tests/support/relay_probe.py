"""The daemon's provider probe (containers/gaia2_container/daemon/provider/probe.py) pointed at a
test's own provider on 127.0.0.1: the real preflight request over real HTTP, as the daemon sends it."""

from __future__ import annotations

from gaia2_container.daemon.provider.probe import ProviderProbe, agent_probe
from gaia2_contract import constants as contract

PROBE_MARKER = b"gaia2-runner preflight"  # in every probe's body (preflight.PROBE_MARKER)


def probe_of(base_url: str, model: str = "test-model", key: str | None = None) -> ProviderProbe:
    """The agent's probe for an OpenAI-compatible endpoint at `base_url` (the built-in runtime's)."""
    env = {
        contract.ENV_AGENT_PROVIDER: "openai-compat",
        contract.ENV_AGENT_MODEL: model,
        contract.ENV_AGENT_BASE_URL: base_url,
        contract.ENV_RUNTIME: "agent",
    }
    if key:
        env[contract.ENV_AGENT_API_KEY] = key
    return agent_probe(env, model)
