"""`--agent NAME` / `[agent] harness`: the registry of profiles and what a choice sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia2_runner.config import load_config
from gaia2_runner.config.defaults import AGENT_IMAGE, ORACLE_IMAGE
from gaia2_runner.config.harnesses import all_harnesses, get_harness
from gaia2_runner.config.load import apply_overrides
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "examples" / "scenarios" / "demo_cab_order.json"
PROFILE = """name = "{name}"
title = "Test harness"
package = "npm:@example/harness"
version = "1.2.3"
base = "node"
wire = "anthropic"
providers = ["anthropic", "openai-compat"]
first_turn = ["harness", "{{prompt}}"]
"""


@pytest.fixture
def containers(tmp_path, monkeypatch):
    root = tmp_path / "containers"
    (root / "harnesses" / "toy").mkdir(parents=True)
    (root / "harnesses" / "toy" / "profile.toml").write_text(PROFILE.format(name="toy"))
    monkeypatch.setenv("GAIA2_CONTAINERS_DIR", str(root))
    return root


def overrides(tmp_path, **values):
    return {
        "scenario": str(SCENARIO),
        "output_dir": str(tmp_path / "out"),
        "judge_provider": "openai-compat",
        "judge_model": "j",
        **values,
    }


def test_the_registry_lists_builtins_then_profiles(containers):
    harnesses = all_harnesses()
    assert list(harnesses)[:2] == ["oracle", "llm"]
    toy = harnesses["toy"]
    assert (toy.image, toy.version, toy.base, toy.wire, toy.runtime) == (
        "localhost/gaia2-toy:latest",
        "1.2.3",
        "node",
        "anthropic",
        "harness",
    )
    assert toy.providers == ("anthropic", "openai-compat")


def test_every_shipped_profile_is_valid_for_the_host():
    shipped = sorted(p.parent.name for p in (REPO / "containers" / "harnesses").glob("*/profile.toml"))
    for name in shipped:
        harness = get_harness(name)
        assert harness.image == f"localhost/gaia2-{name}:latest"
        assert (REPO / "containers" / harness.containerfile).is_file()
        # The Containerfile's default version is the profile's: one pinned version per harness.
        assert f"ARG VERSION={harness.version}" in (REPO / "containers" / harness.containerfile).read_text()


def test_agent_sets_image_provider_and_runtime(containers, tmp_path):
    config = apply_overrides(load_config(None), overrides(tmp_path, harness="toy", model="m", api_key="k"))
    assert (config.agent.image, config.agent.provider, config.agent.runtime) == (
        "localhost/gaia2-toy:latest",
        "anthropic",
        "harness",
    )
    env = container_env(config, {})
    assert env["GAIA2_RUNTIME"] == "harness" and env["GAIA2_AGENT_PROVIDER"] == "anthropic"


def test_explicit_image_and_provider_stay(containers, tmp_path):
    config = apply_overrides(
        load_config(None),
        overrides(tmp_path, harness="toy", image="localhost/my-toy:dev", provider="openai-compat", model="m"),
    )
    assert (config.agent.image, config.agent.provider) == ("localhost/my-toy:dev", "openai-compat")


def test_builtin_agents(containers, tmp_path):
    oracle = apply_overrides(load_config(None), overrides(tmp_path, harness="oracle"))
    assert (oracle.agent.image, oracle.agent.provider, oracle.agent.runtime) == (
        ORACLE_IMAGE,
        "oracle",
        "oracle",
    )
    llm = apply_overrides(load_config(None), overrides(tmp_path, harness="llm", provider="gemini", model="m"))
    assert (llm.agent.image, llm.agent.runtime) == (AGENT_IMAGE, "agent")
    are = apply_overrides(load_config(None), overrides(tmp_path, harness="are-default", model="m"))
    assert (are.agent.image, are.agent.provider, are.agent.runtime) == (
        AGENT_IMAGE,
        "openai-compat",
        "are-default",
    )


def test_bad_choices_are_one_line_errors(containers, tmp_path):
    with pytest.raises(
        Gaia2Error, match=r"--agent: unknown agent 'nope': use one of oracle, llm, are-default, toy"
    ):
        apply_overrides(load_config(None), overrides(tmp_path, harness="nope"))
    with pytest.raises(
        Gaia2Error, match=r"--provider: agent 'toy' cannot use provider 'gemini' \(it speaks anthropic\)"
    ):
        apply_overrides(load_config(None), overrides(tmp_path, harness="toy", provider="gemini", model="m"))


def test_toml_agent_harness(containers, tmp_path):
    toml = tmp_path / "run.toml"
    toml.write_text(
        f'[target]\nscenario = "{SCENARIO}"\n[agent]\nharness = "toy"\nmodel = "m"\napi_key = "k"\n'
        f'[judge]\nprovider = "openai-compat"\nmodel = "j"\n[run]\noutput_dir = "{tmp_path / "o"}"\n'
    )
    config = apply_overrides(load_config(toml), {})
    assert config.agent.image == "localhost/gaia2-toy:latest"
    toml.write_text(toml.read_text().replace('harness = "toy"', 'harness = "ghost"'))
    with pytest.raises(Gaia2Error, match=r"run.toml:\d+ \[agent\] harness: unknown agent 'ghost'"):
        apply_overrides(load_config(toml), {})


def test_a_broken_profile_is_named(containers, tmp_path):
    (containers / "harnesses" / "toy" / "profile.toml").write_text(
        PROFILE.format(name="toy").replace('"node"', '"java"')
    )
    with pytest.raises(Gaia2Error, match=r"toy/profile.toml: invalid base"):
        all_harnesses()
