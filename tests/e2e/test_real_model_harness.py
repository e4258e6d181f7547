"""A CLI harness (mini-swe-agent) against a real model server, through the CLI as a user runs it.

mini talks to llama-server (tests/support/real_model.py) through the daemon's relay, which records every
request with the provider's raw answer; the judge's LLM checks go to the same server. Not asserted:
whether a small model solves the task (or even follows mini's output format). Asserted: a verdict,
the harness recorded, and a relay trace whose every call carries the server's real token counts.
"""

from __future__ import annotations

import pytest

from real_model_runs import assert_model_calls_traced, llm_calls, provider_calls, run_real

# The timeout covers a first build of llama-server, the images and mini's image on a fresh machine.
pytestmark = [pytest.mark.integration, pytest.mark.real_model, pytest.mark.timeout(3600)]

HARNESS = "mini-swe-agent"
SCENARIO = "demo_calendar_add_event"


@pytest.fixture(scope="module")
def run(real_model_server, harness_image, tmp_path_factory):
    harness_image(HARNESS)
    return run_real(HARNESS, SCENARIO, tmp_path_factory.mktemp("real-mini") / "out", real_model_server)


def test_mini_on_a_real_model_ends_in_a_verdict(run):
    assert run.proc.returncode == 0, run.explain()
    assert run.result["success"] in (True, False), run.result
    assert run.run_config["harness"]["name"] == HARNESS, run.run_config


def test_the_relay_traces_every_call_with_real_token_counts(run, real_model_server):
    calls = llm_calls(run.out)
    assert all((c.url or "").startswith(real_model_server.container_url) for c in calls), [
        c.url for c in calls
    ]
    assert len(provider_calls(run.out)) == len(calls)  # side requests too: the relay records every one
    assert_model_calls_traced(run)
