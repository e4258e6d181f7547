"""Build ARE's default agent as gaia2-run builds it (ScenarioRunner._run_with_agent) and run it.

Exit codes, as the other runtimes: 0 when the scenario is over, 2 for bad settings, 3 when ARE's
agent failed (its loop raised), 4 when the daemon's tool API is unreachable. Whatever the exit, the
daemon judges what the agent did.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from gaia2_contract import routes

from ..tools_client import ToolApiError, give_up, request, scenario_over, wait_for_tools
from .settings import (
    ARE_AGENT,
    ARE_PROVIDER,
    GENERATION_TIME_MODE,
    KEY_VARIABLE,
    EngineSettings,
    SettingsError,
)

log = logging.getLogger("gaia2.are_default")

WHO = "are-default"
EXIT_SETTINGS, EXIT_AGENT, EXIT_DAEMON = 2, 3, 4
# ARE's agent logs shown in agent.log, shortened; the prompt it sends each step is in trace.jsonl.
SHOWN_LOGS = frozenset(
    {
        "task",
        "llm_output",
        "tool_call",
        "observation",
        "error",
        "agent_user_interface",
        "environment_notifications",
        "final_answer",
    }
)
SHOWN_CHARS = 500


def show_log(entry: Any) -> None:
    """ARE's log callback (the Environment's world logs in gaia2-run): one line in agent.log."""
    kind = entry.get_type()
    if kind in SHOWN_LOGS:
        text = str(entry.get_content_for_llm() or "").replace("\n", " ")
        log.info("[%s] %s", kind, text[:SHOWN_CHARS])


def build_agent(settings: EngineSettings) -> Any:
    """ARE's config and agent builders with the settings gaia2-run gives them."""
    from are.simulation.agents.agent_builder import AgentBuilder
    from are.simulation.agents.agent_config_builder import AgentConfigBuilder
    from are.simulation.agents.are_simulation_agent_config import LLMEngineConfig
    from are.simulation.types import SimulatedGenerationTimeConfig

    from .standins import environment_standin

    config = AgentConfigBuilder().build(agent_name=ARE_AGENT)
    base = config.get_base_agent_config()
    base.use_custom_logger = True
    base.llm_engine_config = LLMEngineConfig(
        model_name=settings.model, provider=ARE_PROVIDER, endpoint=settings.endpoint
    )
    base.simulated_generation_time_config = SimulatedGenerationTimeConfig(mode=GENERATION_TIME_MODE)
    return AgentBuilder().build(agent_config=config, env=environment_standin(show_log))


def run() -> int:
    from are.simulation.notification_system import VerboseNotificationSystem

    from .standins import InboxQueue, ScenarioStandIn

    try:
        settings = EngineSettings.from_env()
    except SettingsError as exc:
        return give_up(EXIT_SETTINGS, str(exc), WHO)
    try:
        specs = wait_for_tools()
        start_time = request("GET", routes.TIME).get("start_time")
    except ToolApiError as exc:
        return give_up(EXIT_DAEMON, str(exc), WHO)
    os.environ[KEY_VARIABLE] = settings.api_key
    notifications = VerboseNotificationSystem()  # the daemon's kind: the same notified tools
    notifications.message_queue = InboxQueue()
    agent = build_agent(settings)
    log.info("ARE's default agent: model %s via %s, %d tools", settings.model, settings.endpoint, len(specs))
    try:
        agent.run_scenario(
            scenario=ScenarioStandIn.from_specs(specs, start_time), notification_system=notifications
        )
    except ToolApiError as exc:
        if scenario_over():
            return 0
        return give_up(EXIT_DAEMON, str(exc), WHO)
    except Exception as exc:  # noqa: BLE001 - gaia2-run counts a raising agent as a failed run
        return give_up(EXIT_AGENT, f"ARE's default agent failed: {type(exc).__name__}: {exc}", WHO)
    return 0


def main() -> int:
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    return run()
