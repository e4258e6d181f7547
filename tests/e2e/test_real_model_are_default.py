"""ARE's default agent (`--agent are-default`) against a real model server.

llama.cpp's llama-server with a small Qwen2.5-Coder model (tests/real_model.py), run through the CLI
as a user runs it, the judge's LLM checks on the same server. ARE's agent runs with gaia2-run's own
settings (no step or token options: 80 iterations, no max_tokens), so each run is bounded by a short
scenario time limit instead (the test server caps one reply at MAX_PREDICT tokens), after which the
daemon judges what the agent did. What the model achieves is not asserted: every run ends in a
verdict, every model call is traced through the relay with real token counts, and ARE's parser
turned the model's text actions into app tool calls.
"""

from __future__ import annotations

import pytest

from real_model_runs import app_tool_calls, assert_model_calls_traced, run_real

pytestmark = [pytest.mark.integration, pytest.mark.real_model, pytest.mark.timeout(3600)]

SCENARIOS = ("demo_calendar_add_event", "demo_contacts_update_phone")
AGENT = "are-default"
TIME_LIMIT_S = "150"  # per scenario: ARE's agent has no option to stop sooner (by design), so CI's budget
                     # bounds it here: a dozen model calls, after which the daemon judges what it did
JUDGED = ("completed", "failed", "timeout", "agent_exit")
TOOL_CALL_LOG = '[tool_call] {"tool_name"'  # are_default/main.py show_log: ARE's ToolCallLog


@pytest.fixture(scope="module")
def runs(real_model_server, images, tmp_path_factory):
    """One CLI run of each scenario (the model is slow: every test reads the same runs)."""
    root = tmp_path_factory.mktemp("real-are-default")
    return {name: run_real(AGENT, name, root / name, real_model_server, "--timeout", TIME_LIMIT_S)
            for name in SCENARIOS}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_each_run_ends_in_a_verdict(runs, scenario):
    run = runs[scenario]
    assert run.proc.returncode == 0, run.explain()
    assert run.result["status"] in JUDGED and run.result["success"] in (True, False), run.result
    assert run.result["runtime"] == AGENT and run.run_config["harness"]["name"] == AGENT, run.run_config


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_model_call_is_traced_with_real_token_counts(runs, scenario):
    calls = assert_model_calls_traced(runs[scenario])
    # The first request opens with ARE's system prompt (its JSON action format), as gaia2-run sends it.
    system = calls[0].messages[0]
    assert system.role == "system" and "<end_action>" in system.text, system


def test_ares_parser_turns_the_models_text_into_tool_calls(runs):
    """The model writes `Action: {...}`; ARE's JsonActionExecutor parses it into a tool call (ARE's
    ToolCallLog, one `[tool_call]` line of agent.log each), on at least one of the scenarios. Whether
    the call names a real tool is the model's doing: those that do reach the apps (events.jsonl)."""
    parsed = {name: (run.out / "agent.log").read_text(errors="replace").count(TOOL_CALL_LOG) for name, run in runs.items()}
    assert any(parsed.values()), parsed
    for name, run in runs.items():
        assert len(app_tool_calls(run.out)) <= parsed[name], name  # nothing reaches the apps unparsed
