"""ARE's default agent (`--agent are-default`) against a real model server.

llama.cpp's llama-server with a small Qwen2.5-Coder model (tests/support/real_model.py), run through
the CLI (`run-dataset`, as scripts/are_parity.py runs it), the judge's LLM checks on the same server.
ARE's agent runs with gaia2-run's own settings (no step or token options: 80 iterations, no
max_tokens), so each run is bounded by a short scenario time limit instead (the test server caps one
reply with `-n`, scripts/setup-model-server.sh), after which the daemon judges what the agent did.
What the model achieves is not asserted: every run ends in a verdict, every model call is traced
through the relay with real token counts, and ARE's parser turned the model's text actions into
app tool calls.
"""

from __future__ import annotations

import pytest

from are_parity_runs import runner_side
from real_model_runs import app_tool_calls, assert_model_calls_traced

pytestmark = [pytest.mark.integration, pytest.mark.real_model, pytest.mark.timeout(3600)]

# ARE's default agent has no option to stop sooner (by design): a short scenario time limit bounds
# the run, after which the daemon judges what it did. The run is the runner side of the parity run
# on the CI model (tests/support/are_parity_runs.py: `gaia2-runner run-dataset --agent are-default`
# on the real server, judged there too), which runs this agent on this scenario anyway: running it
# again cost the suite's longest chain 4 min. Its first scenario: the server computed ARE's first
# prompt just before, so the runner's first call finds it cached (10 calls answered in the 90 s of a
# parallel rehearsal, where the second scenario's first call could time out).
SCENARIO = "demo_contacts_update_phone"
AGENT = "are-default"
JUDGED = ("completed", "failed", "timeout", "agent_exit")
TOOL_CALL_LOG = '[tool_call] {"tool_name"'  # are_default/main.py show_log: ARE's ToolCallLog


@pytest.fixture(scope="module")
def run(ci_model_parity):
    """The parity run's runner side on SCENARIO, read as a CLI run (every test reads the same run)."""
    return runner_side(ci_model_parity[1], SCENARIO)


def test_the_run_ends_in_a_verdict(run):
    assert run.proc.returncode == 0, run.explain()
    assert run.result["status"] in JUDGED and run.result["success"] in (True, False), run.result
    assert run.result["runtime"] == AGENT and run.run_config["harness"]["name"] == AGENT, run.run_config


def test_every_model_call_is_traced_with_real_token_counts(run):
    calls = assert_model_calls_traced(run)
    # The first request opens with ARE's system prompt (its JSON action format), as gaia2-run sends it.
    system = calls[0].messages[0]
    assert system.role == "system" and "<end_action>" in system.text, system


def test_ares_parser_turns_the_models_text_into_tool_calls(run):
    """The model writes `Action: {...}`; ARE's JsonActionExecutor parses it into a tool call (ARE's
    ToolCallLog, one `[tool_call]` line of agent.log each). Whether the call names a real tool is the
    model's doing: those that do reach the apps (events.jsonl)."""
    parsed = (run.out / "agent.log").read_text(errors="replace").count(TOOL_CALL_LOG)
    assert parsed, run.explain()
    assert len(app_tool_calls(run.out)) <= parsed  # nothing reaches the apps unparsed
