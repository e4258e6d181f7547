"""Running demo scenarios through the CLI against the real model server, and reading what they left.

Shared by the real-model tests and benchmarks/bench_real_model.py: a scenario is run exactly as a user
types it (`gaia2-runner run --agent … --model … --base-url …`), the judge's LLM checks go to the same
real server (no scripted provider anywhere on this path).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gaia2_runner.viewer.trace_parsers import LlmCall, read_trace
from harness_support import SCENARIOS, CliRun, tool_calls
from real_model import RealModelServer

RUN_TIMEOUT_S = 1200  # one CLI run; a first image build happens in the suite's `images` fixture
# The built-in agent's options for a small CPU model: short replies and few steps keep a scenario
# within a couple of minutes; the context stays far below the server's.
LLM_AGENT_OPTIONS = {"max_tokens": "512", "max_steps_per_turn": "6"}
USER_TOOL = "AgentUserInterface"  # its send_message_to_user is also how a plain-text reply is delivered


def run_real(agent: str, scenario: str, out: Path, server: RealModelServer, *extra: str,
             timeout: float = RUN_TIMEOUT_S) -> CliRun:
    """`gaia2-runner run --agent AGENT` on one demo scenario (name without .json), agent and judge on
    the real server (keyless, as a local server is)."""
    proc = subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", "run", "--agent", agent, "--model", server.model,
         "--base-url", server.container_url, *extra,
         "--judge-provider", "openai-compat", "--judge-model", server.model,
         "--judge-base-url", server.container_url,
         "--scenario", str(SCENARIOS / f"{scenario}.json"), "--output-dir", str(out)],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, "COLUMNS": "200"})
    found = sorted(out.rglob("result.json"))
    result = json.loads(found[0].read_text()) if found else {}
    configs = sorted(out.rglob("run_config.json"))
    record = json.loads(configs[0].read_text()) if configs else {}
    return CliRun(proc, result, found[0].parent if found else out, record, out)


def llm_agent_args() -> list[str]:
    """The CLI arguments that select the built-in agent on an OpenAI-compatible server."""
    options = [arg for key, value in LLM_AGENT_OPTIONS.items() for arg in ("--agent-option", f"{key}={value}")]
    return ["--provider", "openai-compat", *options]


def events(out: Path) -> list[dict]:
    """A scenario's events.jsonl."""
    path = out / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def provider_calls(out: Path) -> list[dict]:
    """The relay's provider_call events: every request the agent sent to its provider."""
    return [e for e in events(out) if e["kind"] == "provider_call"]


def llm_calls(out: Path) -> list[LlmCall]:
    """trace.jsonl, parsed as the viewer parses it."""
    return read_trace(out / "trace.jsonl")


def app_tool_calls(out: Path) -> list[dict]:
    """The app tools the agent called, its messages to the user left out."""
    return [e for e in tool_calls(out) if e["app"] != USER_TOOL] if (out / "events.jsonl").exists() else []


def llm_seconds(calls: list[LlmCall]) -> float:
    """Time spent waiting for the model: the sum of the trace's request-to-last-byte latencies."""
    return sum(c.latency_ms or 0.0 for c in calls) / 1000
