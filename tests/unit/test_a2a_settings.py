"""Agent2Agent settings (--a2a-app-prop, --a2a-provider/-model/-base-url): declared once, checked,
and turned into the container's GAIA2_A2A_* variables; the expert agents' own key is a secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia2_contract import constants as contract
from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.config.load import validate
from gaia2_runner.config.schema import BY_NAME
from gaia2_runner.config.secrets import secret_values
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env

DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def config(tmp_path, **overrides):
    base = {
        "dataset_root": DEMO,
        "output_dir": tmp_path,
        "provider": "openai",
        "model": "gpt",
        "judge_provider": "openai",
        "judge_model": "judge",
    }
    base.update(overrides)
    return apply_overrides(load_config(None), base)


def test_settings_are_declared_once_with_their_flags():
    assert [BY_NAME[n].flag for n in ("a2a_app_prop", "a2a_provider", "a2a_model", "a2a_base_url")] == [
        "--a2a-app-prop",
        "--a2a-provider",
        "--a2a-model",
        "--a2a-base-url",
    ]
    assert {BY_NAME[n].section for n in ("a2a_app_prop", "a2a_provider", "a2a_model", "a2a_base_url")} == {
        "agent"
    }


def test_off_by_default_sends_nothing(tmp_path):
    env = container_env(config(tmp_path), {"OPENAI_API_KEY": "sk"})
    assert not [k for k in env if k.startswith(contract.A2A_ENV_PREFIX)]


def test_same_provider_defaults_to_the_agents_settings_in_the_container(tmp_path):
    env = container_env(config(tmp_path, a2a_app_prop=1.0, a2a_model="small"), {"OPENAI_API_KEY": "sk"})
    assert env[contract.ENV_A2A_APP_PROP] == "1.0" and env[contract.ENV_A2A_MODEL] == "small"
    # No provider of their own: no key of their own (the container uses the agent's).
    assert contract.ENV_A2A_PROVIDER not in env and contract.ENV_A2A_API_KEY not in env


def test_own_provider_brings_its_own_key_which_is_a_secret(tmp_path):
    cfg = config(tmp_path, a2a_app_prop=0.5, a2a_provider="openrouter", a2a_model="m")
    env = container_env(cfg, {"OPENAI_API_KEY": "sk-agent", "OPENROUTER_API_KEY": "sk-or"})
    assert env[contract.ENV_A2A_PROVIDER] == "openrouter" and env[contract.ENV_A2A_API_KEY] == "sk-or"
    assert "sk-or" in secret_values(cfg, env)
    with pytest.raises(
        Gaia2Error, match="expert agents provider 'openrouter' needs an API key: set OPENROUTER_API_KEY"
    ):
        container_env(cfg, {"OPENAI_API_KEY": "sk-agent"})


def test_an_agent_on_another_wire_needs_an_expert_provider_of_their_own(tmp_path):
    cfg = config(tmp_path, provider="anthropic", a2a_app_prop=1.0)
    with pytest.raises(
        Gaia2Error, match="--a2a-app-prop: the expert agents run ARE's app agent on a chat completions"
    ):
        container_env(cfg, {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"})
    env = container_env(
        config(tmp_path, provider="anthropic", a2a_app_prop=1.0, a2a_provider="openai", a2a_model="m"),
        {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"},
    )
    assert env[contract.ENV_A2A_PROVIDER] == "openai" and env[contract.ENV_A2A_API_KEY] == "o"


def test_oracle_gets_only_the_proportion(tmp_path):
    oracle = apply_overrides(
        load_config(None),
        {"dataset_root": DEMO, "output_dir": tmp_path, "a2a_app_prop": 1.0, "a2a_model": "m"},
    )
    assert container_env(oracle, {}) == {"GAIA2_RUNTIME": "oracle", contract.ENV_A2A_APP_PROP: "1.0"}


def test_bad_values_get_one_error_line(tmp_path):
    with pytest.raises(Gaia2Error, match="a2a_app_prop must be"):
        validate(config(tmp_path, a2a_app_prop=1.5))
    with pytest.raises(Gaia2Error, match="expert agents' provider 'anthropic'"):
        validate(config(tmp_path, a2a_app_prop=1.0, a2a_provider="anthropic"))
    with pytest.raises(Gaia2Error, match="a2a-base-url"):
        validate(config(tmp_path, a2a_app_prop=1.0, a2a_base_url="http://127.0.0.1:8000/v1"))


def test_the_fingerprint_tells_a2a_runs_apart_and_old_directories_still_match(tmp_path):
    from gaia2_runner.output.fingerprint import differences, fingerprint

    plain, a2a = config(tmp_path), config(tmp_path, a2a_app_prop=1.0, a2a_model="small")
    prints = [fingerprint(c, image_id="i", runtime="agent", scenarios=[]) for c in (plain, a2a)]
    assert "a2a" not in prints[0]["settings"]  # off: as written before the setting existed
    assert (
        prints[1]["settings"]["a2a"]["app_prop"] == 1.0 and prints[1]["settings"]["a2a"]["model"] == "small"
    )
    assert differences(prints[0], prints[1])


def test_result_keeps_the_daemons_a2a_record_and_the_experts_account_only():
    from gaia2_runner.output.result import ScenarioResult

    result = ScenarioResult(scenario_id="s")
    result.apply_status(
        {
            "status": "completed",
            "judgment": {"success": True},
            "a2a": {"app_prop": 1.0, "apps": ["CalendarApp", "ContactsApp"], "extra": "x"},
            "a2a_provider": {"calls": 2},
        }
    )
    assert result.to_dict()["a2a"] == {"app_prop": 1.0, "apps": ["CalendarApp", "ContactsApp"]}
    result.apply_status({"status": "completed", "judgment": {"success": True}, "a2a": {"apps": "nonsense"}})
    assert result.a2a is None
