"""TOML config: validation with file:line, path resolution, env expansion, keys, redaction."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from gaia2_runner import cli
from gaia2_runner.config import apply_overrides, container_env, load_config, load_env_file, redacted
from gaia2_runner.config_schema import SETTINGS
from gaia2_runner.errors import Gaia2Error

DEMO = Path(__file__).resolve().parents[1] / "examples" / "scenarios"


def write(tmp_path: Path, text: str, name: str = "run.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_run_dataset_flag_is_a_setting_and_back():
    params = set(inspect.signature(cli.run_dataset_cmd).parameters) - {"env_file", "dry_run"}
    assert params == {s.name for s in SETTINGS}


def test_full_config_resolves_relative_to_its_file(tmp_path, monkeypatch):
    (tmp_path / "cfg").mkdir()
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("OUT_BASE", str(tmp_path / "outs"))
    path = write(tmp_path / "cfg", """
[target]
dataset_root = "../data"
splits = ["search", "time"]
limit = 3

[agent]
image = "localhost/gaia2-agent:latest"
provider = "openai-compat"
model = "m"
base_url = "http://127.0.0.1:8000/v1"
options = { max_steps_per_turn = 5 }

[judge]
provider = "openai-compat"
model = "j"

[run]
timeout = 300
concurrency = 3
pass_at = 2
output_dir = "${OUT_BASE}/x"
""")
    config = apply_overrides(load_config(path), {})
    assert config.target.dataset_root == (tmp_path / "cfg" / "../data")
    assert config.target.splits == ["search", "time"] and config.target.limit == 3
    assert config.run.output_dir == tmp_path / "outs" / "x"
    assert (config.run.timeout, config.run.concurrency, config.run.pass_at) == (300.0, 3, 2)
    assert config.agent.options == {"max_steps_per_turn": 5}


@pytest.mark.parametrize("text, fragment", [
    ('[run]\noutput_dir = "o"\ntimeot = 3\n', "run.toml:3 [run] timeot: unknown key"),
    ('[run]\nconcurrency = "4"\n', 'run.toml:2 [run] concurrency: expected an integer'),
    ('[runn]\n', "run.toml:1: unknown section [runn]"),
    ('[run\n', "invalid TOML"),
    ('[target]\nsplits = 3\n', "expected a split name"),
])
def test_bad_config_is_one_line_with_file_and_line(tmp_path, text, fragment):
    with pytest.raises(Gaia2Error) as exc:
        load_config(write(tmp_path, text))
    assert fragment in exc.value.message and "\n" not in exc.value.message


def test_missing_files_and_targets_are_rejected(tmp_path):
    with pytest.raises(Gaia2Error, match="config file .* not found"):
        load_config(tmp_path / "nope.toml")
    config = load_config(write(tmp_path, '[target]\nscenario = "missing.json"\n[run]\noutput_dir = "o"\n'))
    with pytest.raises(Gaia2Error, match=r"run.toml:2 \[target\] scenario: .*missing.json not found"):
        apply_overrides(config, {})
    with pytest.raises(Gaia2Error, match="choose exactly one target"):
        apply_overrides(load_config(None), {"output_dir": tmp_path})
    with pytest.raises(Gaia2Error, match="no output directory"):
        apply_overrides(load_config(None), {"dataset_root": DEMO})


def test_flags_override_toml(tmp_path):
    path = write(tmp_path, f'[target]\ndataset_root = "{DEMO}"\n[run]\noutput_dir = "o"\nconcurrency = 2\n')
    config = apply_overrides(load_config(path), {"concurrency": 5, "splits": "a, b", "agent_options": ["x=1", "y=z"]})
    assert config.run.concurrency == 5 and config.target.splits == ["a", "b"]
    assert config.agent.options == {"x": 1, "y": "z"}
    assert config.where("concurrency") == "--concurrency"


def test_env_file_loads_but_real_environment_wins(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("G2_TEST_A=from-file\nG2_TEST_B=from-file\n")
    monkeypatch.setenv("G2_TEST_B", "real")
    monkeypatch.delenv("G2_TEST_A", raising=False)
    (tmp_path / "sub").mkdir()
    assert load_env_file(None, tmp_path / "sub") == tmp_path / ".env"
    import os
    assert os.environ["G2_TEST_A"] == "from-file" and os.environ["G2_TEST_B"] == "real"
    monkeypatch.delenv("G2_TEST_A")
    with pytest.raises(Gaia2Error, match="--env-file"):
        load_env_file(tmp_path / "missing.env", tmp_path)


def agent_config(tmp_path, **overrides):
    base = {"dataset_root": DEMO, "output_dir": tmp_path, "provider": "openai", "model": "gpt",
            "judge_provider": "openai", "judge_model": "judge"}
    base.update(overrides)
    return apply_overrides(load_config(None), base)


def test_keys_come_from_the_environment_and_missing_ones_fail_fast(tmp_path):
    config = agent_config(tmp_path, api_key_env="MY_AGENT_KEY")
    env = container_env(config, {"MY_AGENT_KEY": "sk-agent", "OPENAI_API_KEY": "sk-judge", "https_proxy": "http://p:3128"})
    assert env["GAIA2_RUNTIME"] == "agent" and env["GAIA2_AGENT_API_KEY"] == "sk-agent"
    assert env["GAIA2_JUDGE_API_KEY"] == "sk-judge" and env["https_proxy"] == "http://p:3128"
    with pytest.raises(Gaia2Error, match="MY_AGENT_KEY is not set"):
        container_env(config, {"OPENAI_API_KEY": "x"})
    with pytest.raises(Gaia2Error, match="needs an API key: set ANTHROPIC_API_KEY"):
        container_env(agent_config(tmp_path, provider="anthropic"), {"OPENAI_API_KEY": "x"})
    with pytest.raises(Gaia2Error, match="need a judge"):
        container_env(agent_config(tmp_path, judge_model=None, judge_provider=None), {"OPENAI_API_KEY": "x"})
    oracle = apply_overrides(load_config(None), {"dataset_root": DEMO, "output_dir": tmp_path})
    assert container_env(oracle, {}) == {"GAIA2_RUNTIME": "oracle"}


def test_redacted_config_has_no_secret(tmp_path):
    config = agent_config(tmp_path, api_key="sk-SECRET-1", judge_api_key="sk-SECRET-2")
    dumped = json.dumps(redacted(config))
    assert "sk-SECRET" not in dumped
    assert redacted(config)["agent"]["api_key"] == "(set)"


@pytest.mark.parametrize("path", sorted((DEMO.parent / "configs").glob("*.toml")), ids=lambda p: p.stem)
def test_shipped_configs_load(path):
    config = load_config(path)
    assert config.run.output_dir is not None and config.agent.image
