"""What the CLI harness tests share: the demo scenarios, the calendar solution as a gaia2-cli
command, running one scenario with a harness image against the fake provider, and reading the run."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.execution.scenario_run import run_scenario

HOST = "host.containers.internal"  # the host (and its fake provider) as containers see it
SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
CALENDAR_ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)


def add_event_command(start: str, end: str = "15:00:00") -> str:
    """demo_calendar_add_event's solution (with another start time: a wrong one), in gaia2-cli's words."""
    return (
        "calendar add-event --title 'Dentist appointment' "
        f"--start-datetime '2024-10-03 {start}' --end-datetime '2024-10-03 {end}' "
        "--location 'Smile Dental, 12 Rue Oberkampf, Paris'"
    )


def agent_env(provider: str, fake, key: str, path: str = "", **extra: str) -> dict[str, str]:
    """The agent settings that point a harness at the fake provider, as the container sees the host."""
    return {
        "GAIA2_AGENT_PROVIDER": provider,
        "GAIA2_AGENT_MODEL": "fake-model",
        "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}{path}",
        "GAIA2_AGENT_API_KEY": key,
        **extra,
    }


def run_harness(
    sandbox, image: str, scenario: str, out: Path, agent_env: dict[str, str], timeout: float = 240, **kwargs
):
    """Run one demo scenario (name, with or without .json) with a harness image; (result, its directory)."""
    path = SCENARIOS / (scenario if scenario.endswith(".json") else f"{scenario}.json")
    result = run_scenario(path, image, out, sandbox=sandbox, extra_env=agent_env, timeout=timeout, **kwargs)
    return result, out / result.scenario_id


@dataclass
class CliRun:
    """What `gaia2-runner run --agent NAME` left: the process, result.json, the scenario directory."""

    proc: subprocess.CompletedProcess
    result: dict
    out: Path
    run_config: dict
    root: Path

    def explain(self) -> tuple:
        return self.proc.stdout, self.proc.stderr, agent_log_tail(self.out)


def run_cli(
    agent: str,
    scenario: str,
    out: Path,
    fake,
    key: str | None,
    path: str = "",
    model: str = "fake-model",
    timeout: float = 900,
    extra: tuple[str, ...] = (),
) -> CliRun:
    """`gaia2-runner run --agent AGENT` as a user types it: the harness's default provider, the fake
    provider as `--base-url` (and as the judge's), the key only in an environment variable (None:
    a keyless endpoint, as a local vLLM is); `extra`: more options."""
    keyed = ["--api-key-env", "HARNESS_TEST_KEY"] if key is not None else []
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run",
            "--agent",
            agent,
            "--model",
            model,
            "--base-url",
            f"http://{HOST}:{fake.port}{path}",
            *keyed,
            "--judge-provider",
            "openai-compat",
            "--judge-model",
            "fake-judge",
            "--judge-base-url",
            f"http://{HOST}:{fake.port}/v1",
            "--scenario",
            str(SCENARIOS / f"{scenario}.json"),
            "--output-dir",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "HARNESS_TEST_KEY": key or "", "COLUMNS": "200"},
    )
    return read_cli_run(proc, out)


def read_cli_run(proc: subprocess.CompletedProcess, out: Path) -> CliRun:
    """What a run of one scenario left in `out` (`run` or `run-dataset`), beside its process."""
    found = sorted(out.rglob("result.json"))
    result = json.loads(found[0].read_text()) if found else {}
    configs = sorted(out.rglob("run_config.json"))
    record = json.loads(configs[0].read_text()) if configs else {}
    return CliRun(proc, result, found[0].parent if found else out, record, out)


def assert_cli_wrong_answer_fails(run: CliRun, agent: str, key: str | None) -> None:
    """A wrong solution through the CLI: a verdict (exit 0), a failure, the harness recorded, no key."""
    assert run.proc.returncode == 0 and run.result.get("success") is False, run.explain()
    assert run.result["status"] in ("completed", "failed"), run.explain()
    assert run.run_config["harness"]["name"] == agent and run.run_config["harness"]["version"], run.run_config
    for path in run.root.rglob("*") if key else ():
        if path.is_file():
            data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            assert key.encode() not in data, path


@dataclass(frozen=True)
class HarnessRun:
    """One scripted run of a harness (the `harness_runs` fixture): the result, the scenario's output
    directory, the output root (for the trace pages) and the stopped fake provider (what it was
    asked, on which port)."""

    result: Any
    out: Path
    root: Path
    fake: Any

    @property
    def requests(self) -> list[dict]:
        return self.fake.requests


def explain(result, out: Path) -> tuple:
    """What an assertion message needs when a harness run went wrong."""
    return result.status, result.error, result.failure_reasons, agent_log_tail(out)


def agent_log_tail(out: Path) -> str:
    """The end of a run's agent.log ("" when there is none)."""
    log = out / "agent.log"
    return log.read_text()[-4000:] if log.exists() else ""


def tool_calls(out: Path) -> list[dict]:
    """The app tool calls the agent made, in order (events.jsonl)."""
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]
    return [e for e in events if e["kind"] == "tool_call"]


def app_functions(out: Path) -> list[str]:
    """The app functions the agent called, in order."""
    return [e["function"] for e in tool_calls(out)]
