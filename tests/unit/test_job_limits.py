"""The scheduler's limits: adaptive concurrency (execution/throttle.py), the stop on a configuration
fault and at the cost limit (execution/job_limits.py), and the relay's account on the host
(output/provider_account.py). No timing: the throttle's clock is a counter the test moves."""

from __future__ import annotations

import pytest

from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.job_limits import CONFIGURATION_FAULT, COST_LIMIT, JobLimits
from gaia2_runner.execution.throttle import AdaptiveConcurrency
from gaia2_runner.output.provider_account import (
    UNLISTED,
    configuration_fault,
    pressure,
    run_cost,
    sanitize,
    unpriced_models,
)
from gaia2_runner.pricing import call_cost


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def throttle(maximum: int = 8) -> tuple[AdaptiveConcurrency, Clock]:
    clock = Clock()
    return AdaptiveConcurrency(maximum, clock=clock, cooldown_s=10, quiet_s=30), clock


def test_concurrency_halves_under_pressure_once_per_cooldown_and_never_below_one() -> None:
    limit, clock = throttle(8)
    assert limit.pressure(0) is None and limit.limit == 8
    assert limit.pressure(3) == (
        "the provider is pushing back (rate limits, server errors or no answer): "
        "concurrency lowered from 8 to 4 of 8"
    )
    assert limit.pressure(5) is None and limit.limit == 4  # the same storm, seen by other runs
    clock.now += 10
    limit.pressure(1)
    clock.now += 10
    limit.pressure(1)
    clock.now += 10
    limit.pressure(1)
    assert limit.limit == 1 and limit.lowest == 1
    clock.now += 10
    assert limit.pressure(1) is None and limit.limit == 1
    assert limit.admits(0) and not limit.admits(1)


def test_concurrency_recovers_step_by_step_after_quiet_spells() -> None:
    limit, clock = throttle(4)
    limit.pressure(1)
    assert limit.limit == 2
    clock.now += 29
    assert limit.tick() is None  # not quiet long enough
    clock.now += 1
    assert limit.tick() == "the provider recovered: concurrency raised to 3 of 4"
    assert limit.tick() is None  # one step per quiet spell
    clock.now += 30
    assert limit.tick() == "the provider recovered: concurrency raised to 4 of 4"
    clock.now += 300
    assert limit.tick() is None and limit.limit == 4 and limit.lowest == 2


def test_new_pressure_during_recovery_restarts_the_quiet_spell() -> None:
    limit, clock = throttle(4)
    limit.pressure(1)
    clock.now += 25
    limit.pressure(1)  # past the cooldown: it halves again
    assert limit.limit == 1
    clock.now += 29
    assert limit.tick() is None


def account(rate_limit: int = 0, burst: int = 0, server: int = 0, unanswered: int = 0, **extra) -> dict:
    return {
        "calls": 10,
        "rate_limit": rate_limit,
        "rate_limit_burst": burst,
        "server_error": server,
        "unanswered": unanswered,
        **extra,
    }


def test_only_the_providers_pushback_counts_never_the_agents_flood() -> None:
    """Only what the runner's own probe met too: an agent's oversized or endless requests fail for
    it alone, and its flood's rate limits are its own."""
    assert pressure(account(rate_limit=2, server=1, unanswered=1)) == 0
    assert pressure(account(rate_limit=2, server=1, unanswered=1, confirmed_unavailable=2)) == 2
    assert pressure(account(burst=50)) == 0
    assert pressure(None) == 0 and pressure({"confirmed_unavailable": -3}) == 0
    assert pressure({"confirmed_unavailable": True}) == 0


def test_live_statuses_feed_the_throttle_by_their_increase() -> None:
    limits = JobLimits(4, throttle=AdaptiveConcurrency(4, clock=Clock(), cooldown_s=0))
    assert limits.status_seen("job-a", {"provider": account()}) is None
    confirmed = account(rate_limit=1, confirmed_unavailable=1)
    assert "lowered from 4 to 2" in (limits.status_seen("job-a", {"provider": confirmed}) or "")
    assert limits.status_seen("job-a", {"provider": confirmed}) is None  # nothing new
    assert limits.status_seen("job-b", {"provider": account(burst=40)}) is None  # a flood
    assert limits.status_seen("job-c", {"provider": account(server=9)}) is None  # only the agent's requests
    assert "lowered from 2 to 1" in (
        limits.status_seen("job-d", {"a2a_provider": confirmed}) or ""
    )  # experts'
    assert limits.throttle.limit == 1


def faulted(reason: str = "the provider does not know the model 'x'") -> dict:
    return {
        "success": None,
        "status": "error",
        "provider": sanitize(
            {"calls": 1, "configuration": 1, "fault": {"kind": "configuration", "reason": reason}}
        ),
    }


def test_a_configuration_fault_stops_the_job_once() -> None:
    limits = JobLimits(2)
    assert limits.run_finished("a", {"success": False, "provider": sanitize(account())}) is None
    stop = limits.run_finished("b", faulted())
    assert (
        stop is not None and stop.kind == CONFIGURATION_FAULT and "does not know the model 'x'" in stop.reason
    )
    assert limits.halted and not limits.admits(0)
    assert limits.run_finished("c", faulted("other")) is None  # told once
    assert limits.summary()["stopped"]["kind"] == CONFIGURATION_FAULT


def test_the_expert_agents_and_the_judges_configuration_faults_stop_the_job_too() -> None:
    experts = {
        "success": None,
        "status": "error",
        "provider": sanitize(account()),
        "a2a_provider": faulted("the provider refused the configured API key")["provider"],
    }
    stop = JobLimits(2).run_finished("a", experts)
    assert (
        stop is not None
        and "the expert agents' provider: the provider refused the configured API key" in stop.reason
    )
    judge = {
        "success": None,
        "status": "error",
        "judge_fault": {"kind": "configuration", "reason": "key refused"},
    }
    stop = JobLimits(2).run_finished("b", judge)
    assert (
        stop is not None
        and stop.kind == CONFIGURATION_FAULT
        and "the judge's provider: key refused" in stop.reason
    )


def test_a_fault_in_a_judged_run_stops_nothing() -> None:
    judged = {**faulted(), "success": False}  # a verdict: the fault cannot have been the run's end
    assert configuration_fault(judged) is None
    assert JobLimits(2).run_finished("a", judged) is None


def priced(model: str = "gpt-4o", tokens_in: int = 1_000_000, tokens_out: int = 0) -> dict:
    return {
        "success": False,
        "provider": sanitize(
            {"by_model": {model: {"calls": 1, "input": tokens_in, "output": tokens_out, "cached": 0}}}
        ),
    }


def test_cost_of_a_run_from_the_relays_tokens() -> None:
    assert run_cost(priced()) == pytest.approx(call_cost("gpt-4o", 1_000_000, 0))
    assert run_cost(priced("no-such-model-anywhere")) is None
    assert run_cost({"provider": None}) is None and run_cost({}) is None


def test_the_cost_limit_stops_launching_and_counts_earlier_runs() -> None:
    one = run_cost(priced())
    assert one is not None and one > 0
    limits = JobLimits(2, cost_limit=one * 2.5, finished=[priced()])
    assert limits.stop is None and limits.spent == pytest.approx(one)
    assert limits.run_finished("a", priced()) is None
    stop = limits.run_finished("b", priced())
    assert stop is not None and stop.kind == COST_LIMIT and stop.reason.startswith("stopped at cost limit")
    assert not limits.admits(0) and not limits.halted  # runs in flight finish
    already = JobLimits(2, cost_limit=one / 2, finished=[priced()])
    assert already.stop is not None and already.stop.kind == COST_LIMIT  # a rerun starts nothing


def test_sanitize_keeps_only_sane_values() -> None:
    doc = sanitize(
        {
            "calls": 3,
            "rate_limit": "x",
            "tokens": {"input": 5, "output": -1},
            "by_model": {"m": {"input": 2}},
            "fault": {"kind": "other", "reason": "r"},
            "token_budget": 0,
            "budget_exhausted": 1,
        }
    )
    assert doc is not None and doc["calls"] == 3 and doc["rate_limit"] == 0
    assert doc["tokens"] == {"input": 5, "output": 0, "cached": 0}
    assert doc["by_model"] == {"m": {"input": 2, "output": 0, "cached": 0, "calls": 0}}
    assert doc["fault"] is None and doc["token_budget"] is None and doc["budget_exhausted"] is False
    assert sanitize("nope") is None


def config(tmp_path, **overrides):
    scenario = tmp_path / "s.json"
    scenario.write_text("{}")
    base = {
        "scenario": str(scenario),
        "output_dir": str(tmp_path / "out"),
        "provider": "openai",
        "model": "gpt-4o",
        "judge_provider": "openai",
        "judge_model": "gpt-4o",
    }
    return apply_overrides(load_config(None), {**base, **overrides})


def test_budget_settings_are_checked(tmp_path) -> None:
    assert config(tmp_path, max_tokens=5000, cost_limit=2.5).run.max_tokens == 5000
    # Dated and provider-qualified names are priced; the judge's calls are not counted, so its
    # model needs no price.
    assert (
        config(
            tmp_path,
            cost_limit=1.0,
            model="anthropic/claude-sonnet-4-5-20250929",
            a2a_model="gpt-4o-mini-2024-07-18",
            judge_model="judge-without-a-price",
        ).run.cost_limit
        == 1.0
    )
    for overrides, words in (
        ({"max_tokens": 0}, "max_tokens must be 1 to"),
        ({"cost_limit": -1.0}, "cost_limit must be a positive number"),
        ({"cost_limit": float("inf")}, "cost_limit must be a positive number"),
        (
            {"cost_limit": 1.0, "model": "unpriced-model-xyz"},
            "--model: cost_limit needs a price for the model 'unpriced-model-xyz'",
        ),
        ({"cost_limit": 1.0, "model": "gpt-5-pro"}, "price for the model 'gpt-5-pro'"),
        (
            {"cost_limit": 1.0, "a2a_model": "o1-pro"},
            "--a2a-model: cost_limit needs a price for the expert agents' model 'o1-pro'",
        ),
        ({"max_tokens": 10, "provider": "oracle"}, "the oracle makes none"),
    ):
        with pytest.raises(Gaia2Error, match=words) as caught:
            config(tmp_path, **overrides)
        assert "\n" not in caught.value.message


def test_unpriced_models_are_refused_where_the_config_file_names_them(tmp_path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text("{}")
    path = tmp_path / "job.toml"
    path.write_text(
        f'[target]\nscenario = "{scenario}"\n[agent]\nprovider = "openai"\nmodel = "gpt-4o-mini"\n'
        f'a2a_model = "o1-pro"\n[run]\noutput_dir = "{tmp_path / "out"}"\ncost_limit = 0.0002\n'
    )
    with pytest.raises(Gaia2Error) as caught:
        apply_overrides(load_config(path), {})
    assert caught.value.message.startswith(
        f"{path}:6 [agent] a2a_model: cost_limit needs a price for the expert agents' model 'o1-pro'"
    )
    with pytest.raises(Gaia2Error, match="no model is set"):
        config(tmp_path, cost_limit=1.0, model=None, provider="openai")


def test_the_index_says_how_the_job_stopped() -> None:
    from gaia2_runner.viewer.stats import stopped_note

    assert stopped_note({"stopped": {"kind": "cost_limit", "reason": "r"}}) == "stopped at cost limit"
    assert stopped_note({"stopped": {"kind": "configuration_fault"}}) == "STOPPED: configuration fault"
    assert stopped_note({"stopped": None}) == "" and stopped_note({"stopped": {"kind": ["x"]}}) == ""
    assert stopped_note(None) == "" and stopped_note({"stopped": {"kind": "<script>"}}) == ""


def called(*models: str, tokens: int = 1000, account: str = "provider", **extra) -> dict:
    by_model = {model: {"calls": 1, "input": tokens, "output": tokens, "cached": 0} for model in models}
    return {
        "success": False,
        account: sanitize(
            {
                "tokens": {"input": tokens * len(models), "output": tokens * len(models)},
                "by_model": by_model,
                **extra,
            }
        ),
    }


def test_calls_to_an_unpriced_model_make_the_cost_unknown_never_zero() -> None:
    run = called("o1-pro", "gpt-4o-mini")
    assert unpriced_models(run) == ["o1-pro"]
    assert run_cost(run) == pytest.approx(call_cost("gpt-4o-mini", 1000, 1000))  # the priced part only
    assert unpriced_models(called("gpt-5-pro")) == ["gpt-5-pro"]  # not billed as gpt-5
    assert unpriced_models(called("gpt-4o-mini", "claude-sonnet-4-5-20250929")) == []
    assert unpriced_models(called("o1-pro", tokens=0)) == ["o1-pro"]  # a call without usage: still unknown
    idle = {"provider": sanitize({"by_model": {"o1-pro": {"calls": 0, "input": 0, "output": 0}}})}
    assert unpriced_models(idle) == [] and unpriced_models({}) == []


def test_the_expert_agents_calls_are_counted_too() -> None:
    experts = called("gpt-4o-mini", account="a2a_provider")
    both = {**called("gpt-4o-mini"), "a2a_provider": experts["a2a_provider"]}
    assert run_cost(experts) == pytest.approx(call_cost("gpt-4o-mini", 1000, 1000))
    assert run_cost(both) == pytest.approx(2 * call_cost("gpt-4o-mini", 1000, 1000))
    assert unpriced_models(called("o1-pro", account="a2a_provider")) == ["o1-pro"]


def test_tokens_beyond_the_listed_models_are_unpriced() -> None:
    """`sanitize` keeps 16 models: calls to a 17th would otherwise cost nothing."""
    models = [f"gpt-4o-{n}" for n in range(17)]
    run = called("gpt-4o-mini", *models)
    assert len(run["provider"]["by_model"]) == 16 and UNLISTED in unpriced_models(run)


def test_an_unpriced_model_stops_a_job_under_a_cost_limit() -> None:
    limits = JobLimits(2, cost_limit=0.0002)
    assert limits.run_finished("a", called("gpt-4o-mini", tokens=10)) is None
    stop = limits.run_finished("b", called("o1-pro", "gpt-4o-mini", tokens=10))
    assert stop is not None and stop.kind == COST_LIMIT and not limits.admits(0) and not limits.halted
    assert (
        stop.reason.startswith("stopped at cost limit: the job's cost is unknown")
        and "'o1-pro'" in stop.reason
    )
    assert "GAIA2_PRICES" in stop.reason and "\n" not in stop.reason
    summary = limits.summary()
    assert summary["cost_usd"] is None and summary["cost_unpriced_models"] == ["o1-pro"]
    assert summary["stopped"]["kind"] == COST_LIMIT
    rerun = JobLimits(2, cost_limit=100.0, finished=[called("o1-pro")])
    assert rerun.stop is not None and rerun.stop.kind == COST_LIMIT  # earlier runs count too


def test_without_a_cost_limit_an_unpriced_model_is_reported_not_stopped() -> None:
    limits = JobLimits(2)
    assert limits.run_finished("a", called("o1-pro", "gpt-4o-mini")) is None and limits.admits(0)
    assert limits.summary()["cost_usd"] is None and limits.summary()["cost_unpriced_models"] == ["o1-pro"]
    priced = JobLimits(2, finished=[called("gpt-4o-mini")]).summary()
    assert priced["cost_usd"] == pytest.approx(call_cost("gpt-4o-mini", 1000, 1000), abs=1e-6)
    assert priced["cost_unpriced_models"] == []


def test_many_unpriced_models_make_a_short_reason() -> None:
    limits = JobLimits(1, cost_limit=1.0, finished=[called(*(f"m{n}\x1b[2J" for n in range(6)))])
    assert limits.stop is not None and "and 3 more" in limits.stop.reason and "\x1b" not in limits.stop.reason
