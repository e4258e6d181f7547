"""The built-in agent (`--agent llm`, provider openai-compat) against a real model server.

llama.cpp's llama-server with a small Qwen2.5-Coder model (tests/support/real_model.py), run through the CLI
as a user runs it, the judge's LLM checks on the same server. What a small model achieves is not
asserted (no success rate): that every run ends in a verdict, that the trace holds every model call
with real token counts, that the relay witnessed the calls, and that the agent turned the model's
replies into app tool calls (small models write them as text, which the agent must recognise).
"""

from __future__ import annotations

import pytest

from real_model_runs import (
    app_tool_calls,
    assert_model_calls_traced,
    llm_agent_args,
    llm_calls,
    run_real,
    trace_lines,
)

# The timeout covers a first build of llama-server and the images on a fresh machine.
pytestmark = [pytest.mark.integration, pytest.mark.real_model, pytest.mark.timeout(3600)]

# One scenario: a second one proved the same things and cost CI another minute of model time.
SCENARIO = "demo_calendar_add_event"


@pytest.fixture(scope="module")
def run(real_model_server, images, tmp_path_factory):
    """One CLI run of the scenario (the model is slow: every test reads the same run)."""
    root = tmp_path_factory.mktemp("real-llm")
    return run_real("llm", SCENARIO, root / SCENARIO, real_model_server, *llm_agent_args())


def test_the_run_ends_in_a_verdict(run):
    assert run.proc.returncode == 0, run.explain()
    assert run.result["status"] in ("completed", "failed") and run.result["success"] in (True, False), (
        run.result
    )
    assert run.run_config["config"]["agent"]["provider"] == "openai-compat", run.run_config


def test_every_model_call_is_traced_with_real_token_counts(run):
    assert_model_calls_traced(run)


def test_the_agent_turns_the_models_replies_into_tool_calls(run):
    """Small models write tool calls as text (a fenced or bare JSON block, not parsed by the server);
    the agent must still call the app tools, and its trace says where each call came from. With
    greedy decoding the model answers the scenario with a JSON tool call (right or wrong)."""
    assert app_tool_calls(run.out), run.explain()
    sources = [
        (bool(c.response.tool_calls), bool(line.get("text_tool_calls")))
        for c, line in zip(llm_calls(run.out), trace_lines(run.out))
    ]
    assert any(native or text for native, text in sources), sources
