"""What the CLI harness tests share: the demo scenarios, the calendar solution as a gaia2-cli
command, running one scenario with a harness image against the fake provider, and reading the run."""

from __future__ import annotations

import json
from pathlib import Path

from gaia2_runner.engine.scenario_run import run_scenario

HOST = "host.containers.internal"  # the host (and its fake provider) as containers see it
SCENARIOS = Path(__file__).resolve().parents[1] / "examples" / "scenarios"
CALENDAR_ANSWER = ("Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
                   "at Smile Dental, 12 Rue Oberkampf, Paris.")


def add_event_command(start: str, end: str = "15:00:00") -> str:
    """demo_calendar_add_event's solution (with another start time: a wrong one), in gaia2-cli's words."""
    return ("calendar add-event --title 'Dentist appointment' "
            f"--start-datetime '2024-10-03 {start}' --end-datetime '2024-10-03 {end}' "
            "--location 'Smile Dental, 12 Rue Oberkampf, Paris'")


def agent_env(provider: str, fake, key: str, path: str = "", **extra: str) -> dict[str, str]:
    """The agent settings that point a harness at the fake provider, as the container sees the host."""
    return {"GAIA2_AGENT_PROVIDER": provider, "GAIA2_AGENT_MODEL": "fake-model",
            "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}{path}", "GAIA2_AGENT_API_KEY": key, **extra}


def run_harness(backend, image: str, scenario: str, out: Path, agent_env: dict[str, str], timeout: float = 240,
                **kwargs):
    """Run one demo scenario (name, with or without .json) with a harness image; (result, its directory)."""
    path = SCENARIOS / (scenario if scenario.endswith(".json") else f"{scenario}.json")
    result = run_scenario(path, image, out, backend=backend, extra_env=agent_env, timeout=timeout, **kwargs)
    return result, out / result.scenario_id


def explain(result, out: Path) -> tuple:
    """What an assertion message needs when a harness run went wrong."""
    log = out / "agent.log"
    return result.status, result.error, result.failure_reasons, log.read_text()[-4000:] if log.exists() else ""


def tool_calls(out: Path) -> list[dict]:
    """The app tool calls the agent made, in order (events.jsonl)."""
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]
    return [e for e in events if e["kind"] == "tool_call"]


def app_functions(out: Path) -> list[str]:
    """The app functions the agent called, in order."""
    return [e["function"] for e in tool_calls(out)]
