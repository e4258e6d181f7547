"""Every CLI harness (Claude Code, Codex, Gemini CLI, Hermes, mini-swe-agent, OpenClaw) as the agent
under test, end to end in its own image: what holds for each of them.

The real harness runs under the turn driver; the fake provider on the host speaks the harness's wire
format (tests/support/harness_cases.py: one row per harness) and scripts what "the model" does with
the harness's own shell tool: it runs gaia2-cli's app commands, then answers (the turn's reply).
ARE's judge decides. What only one harness does is checked in its own file (test_harness_NAME.py),
on the same runs (tests/conftest.py: `harness_runs`).
"""

from __future__ import annotations

import pytest

from gaia2_runner.viewer import build
from harness_cases import CALENDAR, CALENDAR_CALLS, MULTI_TURN, HarnessCase, params
from harness_support import CALENDAR_ANSWER, app_functions, assert_cli_wrong_answer_fails, explain, run_cli

pytestmark = [pytest.mark.integration]


@pytest.mark.parametrize("case", params())
def test_the_calendar_task_is_solved_and_the_key_stays_in_the_model_calls(case: HarnessCase, harness_runs):
    run = harness_runs(case.name, CALENDAR)
    result, out = run.result, run.out
    assert (result.status, result.success) == ("completed", True), explain(result, out)
    assert app_functions(out) == CALENDAR_CALLS
    assert (out / "agent_response.txt").read_text() == CALENDAR_ANSWER  # the harness's last reply
    requests = case.model_requests(run.fake)
    assert len(requests) == 2, [(r["method"], r["path"]) for r in run.requests]
    header, value = case.key_header
    assert {r["headers"].get(header) for r in requests} == {value}
    # The key reached the provider in its header and nowhere else: no output file (the trace page
    # included) holds it.
    build(run.root)
    assert (out / "trace.html").exists()
    for path in out.rglob("*"):
        if path.is_file():
            assert case.key not in path.read_text(errors="replace"), path


@pytest.mark.parametrize("case", params())
def test_a_wrong_start_time_is_judged_a_failure(case: HarnessCase, sandbox, harness_image, fake, tmp_path):
    """Through the CLI as a user runs it: a verdict (exit 0), a failure, the harness recorded, the
    key in no file of the run (a keyless endpoint, as a local vLLM is, sees no credential at all)."""
    harness_image(case.name)
    fake.set_script({case.route: case.calendar_script("15:00:00", case.wrong_end)})
    key = case.cli_key()
    run = run_cli(case.name, CALENDAR, tmp_path / "out", fake, key, case.path, model=case.model)
    assert_cli_wrong_answer_fails(run, case.name, key)
    assert app_functions(run.out)[: case.wrong_calls_checked] == CALENDAR_CALLS[: case.wrong_calls_checked]
    if key is None:  # litellm insists on a key: the run's placeholder, which the relay drops
        agent_calls = [
            r for r in fake.llm_requests() if r["body"].get("model") == case.model
        ]  # not the judge's
        assert agent_calls and {r["headers"].get("authorization") for r in agent_calls} == {None}


@pytest.mark.parametrize("case", params())
def test_a_second_user_message_is_a_turn_of_the_same_run(case: HarnessCase, harness_runs):
    """The two-turn email task: both turns answered, one model call per scripted reply (how each
    harness carries turn 1 into turn 2 is checked in its own file)."""
    run = harness_runs(case.name, MULTI_TURN)
    assert (run.result.status, run.result.success) == ("completed", True), explain(run.result, run.out)
    assert len(case.model_requests(run.fake)) == len(case.multi_turn_script())
