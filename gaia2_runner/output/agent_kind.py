"""What kind of agent a run evaluated, in one word: the label `ls`, `compare`, the exports and the
viewer show (run_config.json `agent_kind`).

A run whose container gets GAIA2_AGENT_COMMAND runs that command whatever the image, runtime or
provider say (the daemon's agent_process.agent_command), so it is "custom", never "oracle".
The command's value is never read here beyond "is it set": it may hold secrets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gaia2_contract import constants as contract
from gaia2_contract import providers

ORACLE = "oracle"
LLM = "llm"  # the built-in tool-calling loop
ARE_DEFAULT = "are-default"
CUSTOM = "custom"  # GAIA2_AGENT_COMMAND
EXTERNAL = "external"  # GAIA2_RUNTIME none: something outside drives the tool API
# GAIA2_RUNTIME -> kind, for runs that name a runtime but no --agent.
_RUNTIME_KINDS = {"oracle": ORACLE, "agent": LLM, "are-default": ARE_DEFAULT, "none": EXTERNAL}


def agent_kind(agent: Mapping[str, Any], *, custom_command: bool) -> str:
    """The kind from a run's [agent] settings (the redacted document run_config.json holds):
    custom, else the --agent name (oracle, llm, are-default or a harness), else the runtime's,
    else oracle for the oracle provider and llm for any model provider."""
    if custom_command:
        return CUSTOM
    harness, runtime, provider = agent.get("harness"), agent.get("runtime"), agent.get("provider")
    if isinstance(harness, str) and harness:
        return harness
    if isinstance(runtime, str) and runtime:
        return _RUNTIME_KINDS.get(runtime, runtime)
    return ORACLE if provider in (None, providers.ORACLE) else LLM


def command_in_settings(agent: Mapping[str, Any]) -> bool:
    """Whether the run's own variables (`--env`, [agent] env; names only) set GAIA2_AGENT_COMMAND."""
    env = agent.get("env")
    return isinstance(env, dict) and contract.ENV_AGENT_COMMAND in env


def command_given(env: Mapping[str, str], environ: Mapping[str, str]) -> bool:
    """Whether containers get a non-empty GAIA2_AGENT_COMMAND: the run's `--env` wins over the
    host's GAIA2_AGENT_* variables, which are passed on (execution/container_env.py)."""
    name = contract.ENV_AGENT_COMMAND
    return bool(env[name]) if name in env else bool(environ.get(name))
