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

from gaia2_runner.output.read.trace_parsers import LlmCall, read_trace
from harness_support import SCENARIOS, CliRun, read_cli_run
from real_model import RealModelServer

RUN_TIMEOUT_S = 1200  # one CLI run; a first image build happens in the suite's `images` fixture
# The built-in agent's options for a small CPU model: short replies and few steps keep a scenario
# within a couple of minutes; the context stays far below the server's.
LLM_AGENT_OPTIONS = {"max_tokens": "512", "max_steps_per_turn": "6"}
# Seconds per scenario for the built-in agent: a cold first prompt (~2,700 tokens) takes 45-145 s on a
# busy 2-core CPU, and one call's attempts share 75 % of this limit (containers/gaia2_container/budget.py);
# at the default 420 s an attempt gets ~80 s, times out, and its retry queues behind it on the one slot.
LLM_TIMEOUT_S = "900"
USER_TOOL = "AgentUserInterface"  # its send_message_to_user is also how a plain-text reply is delivered
CHAT_PATH = "/chat/completions"  # model calls, as opposed to side requests (GET /models …)


def run_real(
    agent: str, scenario: str, out: Path, server: RealModelServer, *extra: str, timeout: float = RUN_TIMEOUT_S
) -> CliRun:
    """`gaia2-runner run --agent AGENT` on one demo scenario (name without .json), agent and judge on
    the real server (keyless, as a local server is)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run",
            "--agent",
            agent,
            "--model",
            server.model,
            "--base-url",
            server.container_url,
            *extra,
            "--judge-provider",
            "openai-compat",
            "--judge-model",
            server.model,
            "--judge-base-url",
            server.container_url,
            "--scenario",
            str(SCENARIOS / f"{scenario}.json"),
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )
    return read_cli_run(proc, out)


def llm_agent_args() -> list[str]:
    """The CLI arguments that select the built-in agent on an OpenAI-compatible server."""
    options = [
        arg for key, value in LLM_AGENT_OPTIONS.items() for arg in ("--agent-option", f"{key}={value}")
    ]
    return ["--provider", "openai-compat", "--timeout", LLM_TIMEOUT_S, *options]


def jsonl(path: Path) -> list[dict]:
    """A JSON Lines file as written ([] when the run left none)."""
    return (
        [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    )


def provider_calls(out: Path) -> list[dict]:
    """The relay's provider_call events: every request the agent sent to its provider."""
    return [e for e in jsonl(out / "events.jsonl") if e["kind"] == "provider_call"]


def app_tool_calls(out: Path) -> list[dict]:
    """The app tools the agent called, its messages to the user left out."""
    return [e for e in jsonl(out / "events.jsonl") if e["kind"] == "tool_call" and e["app"] != USER_TOOL]


def trace_lines(out: Path) -> list[dict]:
    """trace.jsonl as written (fields the viewer's parser does not keep, e.g. text_tool_calls)."""
    return jsonl(out / "trace.jsonl")


def llm_calls(out: Path) -> list[LlmCall]:
    """trace.jsonl, parsed as the viewer parses it."""
    return read_trace(out / "trace.jsonl")


def assert_model_calls_traced(run: CliRun) -> list[LlmCall]:
    """Every model call in the run's trace was answered (200) with the server's real token counts,
    and the daemon's relay witnessed each request (provider_call events); returns the model calls."""
    calls = [c for c in llm_calls(run.out) if (c.url or "").endswith(CHAT_PATH)]
    assert calls, run.explain()
    assert all(c.http_status == 200 and not c.error for c in calls), [(c.http_status, c.error) for c in calls]
    assert all((c.response.usage.input or 0) > 0 for c in calls), [c.response.usage for c in calls]
    assert sum(c.response.usage.output or 0 for c in calls) > 0, [c.response.usage for c in calls]
    relayed = [e for e in provider_calls(run.out) if e["url"].endswith(CHAT_PATH)]
    assert len(relayed) >= len(calls) and all(e["http_status"] == 200 for e in relayed), (
        relayed
    )  # retries: more
    return calls


def llm_seconds(calls: list[LlmCall]) -> float:
    """Time spent waiting for the model: the sum of the trace's request-to-last-byte latencies."""
    return sum(c.latency_ms or 0.0 for c in calls) / 1000
