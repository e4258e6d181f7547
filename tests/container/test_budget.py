"""The per-call time arithmetic (containers/gaia2_container/budget.py) and the built-in runtime's
transport that follows it, against the scripted provider on 127.0.0.1.

What must hold as the scenario limit grows: an attempt never gets shorter, one call with every
retry stays inside its window, an attempt waits as long as ARE's own client once the limit allows,
the relay never cuts an attempt the agent still waits for; and a slow server still computing is
not asked the same thing again unless a whole attempt still fits.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_llm.server import FakeLLM
from gaia2_container import budget
from gaia2_container.runtimes.llm.messages import Message
from gaia2_container.runtimes.llm.providers import make_provider
from gaia2_container.runtimes.llm.settings import Options, Settings
from gaia2_container.runtimes.llm.trace import Redactor, TraceWriter
from gaia2_container.runtimes.llm.transport import ProviderError, RetryPolicy, Transport

LIMITS = [float(s) for s in range(120, 3601, 15)]
WANTED = [
    budget.CallBudget(Options().request_timeout_s, Options().max_retries, Options().retry_max_s),
    budget.CallBudget(300.0, 4, 60.0),
    budget.CallBudget(30.0, 10, 5.0),
    budget.CallBudget(900.0, 0, 60.0),
]


@pytest.mark.parametrize("wanted", WANTED)
def test_attempts_never_shrink_as_the_limit_grows_and_one_call_fits_its_window(
    wanted: budget.CallBudget,
) -> None:
    previous = budget.CallBudget(0.0, 0, 0.0)
    previous_relay = 0.0
    for limit in LIMITS:
        fitted = budget.fit_call(wanted, limit)
        assert fitted.timeout_s >= previous.timeout_s, (limit, fitted, previous)
        assert fitted.worst_case_s() <= budget.call_window(limit), (limit, fitted)
        assert fitted.timeout_s <= wanted.timeout_s and fitted.max_retries == wanted.max_retries
        relay = budget.relay_timeout(limit)
        assert previous_relay <= relay <= limit and relay > fitted.timeout_s  # the agent's timeout decides
        previous, previous_relay = fitted, relay


def test_the_default_attempt_waits_as_long_as_ares_client_once_the_limit_allows() -> None:
    default = WANTED[0]
    assert default.timeout_s == budget.ARE_CLIENT_TIMEOUT_S == 600.0
    assert budget.fit_call(default, 420.0).timeout_s == 315.0  # the whole call window
    assert budget.fit_call(default, 600.0).timeout_s == 450.0  # a 75 s model is answered at once
    for limit in (800.0, 900.0, 3600.0):
        assert budget.fit_call(default, limit).timeout_s == 600.0
    assert budget.fit_call(default, None) == default
    assert budget.relay_timeout(None) == budget.RELAY_TIMEOUT_S + budget.RELAY_GRACE_S


def test_the_built_in_runtime_takes_its_request_budget_from_the_scenario_limit() -> None:
    env = {
        "GAIA2_AGENT_PROVIDER": "openai-compat",
        "GAIA2_AGENT_MODEL": "m",
        "GAIA2_AGENT_BASE_URL": "http://x/v1",
        "GAIA2_SCENARIO_TIMEOUT": "420",
        "GAIA2_AGENT_OPTIONS": '{"request_timeout_s": 900, "max_retries": 6}',
    }
    settings = Settings.from_env(env)
    assert (settings.options.request_timeout_s, settings.options.max_retries, settings.limit_s) == (
        315.0,
        6,
        420.0,
    )
    unlimited = Settings.from_env({**env, "GAIA2_SCENARIO_TIMEOUT": "0"})
    assert (unlimited.options.request_timeout_s, unlimited.limit_s) == (900.0, None)


def test_a_retry_after_a_timeout_needs_a_whole_attempt_and_after_an_error_any_time() -> None:
    assert not budget.retry_fits(True, 299.0, 300.0) and budget.retry_fits(True, 300.0, 300.0)
    assert budget.retry_fits(False, 1.0, 300.0) and not budget.retry_fits(False, 0.0, 300.0)


def test_the_slow_model_note_gives_the_measured_time_and_a_limit_that_fits() -> None:
    note = budget.slow_model_note(214.4, 315.0, 420.0)
    assert "first answer took 214s" in note and "--timeout 2160" in note and "--timeout 420" in note
    silent = budget.slow_model_note(None, 315.0, 420.0)
    assert "no answer within 315s" in silent and "--timeout" in silent
    assert budget.fitting_limit(75.0) == 780 and budget.fitting_limit(600.0) == 6000


# ---- the transport against a real server ---------------------------------------------------------
@pytest.fixture
def fake():
    server = FakeLLM(host="127.0.0.1")
    server.start()
    yield server
    server.stop()


def complete(fake: FakeLLM, tmp_path: Path, limit_s: float, **options) -> Transport:
    settings = Settings("openai-compat", "m", f"http://127.0.0.1:{fake.port}/v1", None, Options(**options))
    opts = budget.fit_call(
        budget.CallBudget(
            settings.options.request_timeout_s, settings.options.max_retries, settings.options.retry_max_s
        ),
        limit_s,
    )
    transport = Transport(
        TraceWriter(tmp_path / "trace.jsonl", Redactor(None), "openai-compat", "m"),
        Redactor(None),
        opts.timeout_s,
        RetryPolicy(opts.max_retries, 0.01, opts.retry_max_s),
        limit_s=limit_s,
    )
    make_provider(settings, transport).complete([Message("user", "hi")], [])
    return transport


def test_a_slow_answer_inside_the_window_is_waited_for_and_asked_once(fake, tmp_path) -> None:
    fake.set_script({"chat": [{"text": "late but fine", "delay_s": 1.5}, {"text": "a second ask"}]})
    transport = complete(fake, tmp_path, limit_s=4.0)  # one attempt may wait 3 s
    assert len(fake.llm_requests()) == 1 and transport.first_answer_s >= 1.5


def test_a_timed_out_request_is_not_sent_again_when_a_whole_attempt_no_longer_fits(fake, tmp_path) -> None:
    fake.set_script({"chat": [{"text": "too late", "delay_s": 5, "repeat": 5}]})
    with pytest.raises(ProviderError) as caught:
        complete(fake, tmp_path, limit_s=4.0, max_retries=4)  # the attempt takes the whole 3 s window
    assert len(fake.llm_requests()) == 1, "asked again while the server still computed the first"
    assert "waited 3s" in str(caught.value) and "no answer within 3s" in str(caught.value)
    assert json.loads((tmp_path / "trace.jsonl").read_text().splitlines()[0])["attempts"] == 1


def test_a_timed_out_request_is_sent_again_when_a_whole_attempt_still_fits(fake, tmp_path) -> None:
    fake.set_script({"chat": [{"text": "too late", "delay_s": 3}, {"text": "in time"}]})
    complete(fake, tmp_path, limit_s=8.0, request_timeout_s=1.0, max_retries=1)  # 6 s window, 1 s attempts
    assert len(fake.llm_requests()) == 2


def test_an_error_answer_is_retried_within_the_window(fake, tmp_path) -> None:
    fake.set_script({"chat": [{"status": 503, "message": "busy"}, {"text": "ok"}]})
    complete(fake, tmp_path, limit_s=4.0)
    assert len(fake.llm_requests()) == 2
