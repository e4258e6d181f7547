"""TOML config: validation with file:line, path resolution, env expansion, keys, redaction."""

from __future__ import annotations

import inspect
import json
from dataclasses import replace
from pathlib import Path

import pytest

from gaia2_runner.cli import options
from gaia2_runner.cli.commands import run_dataset as commands_run
from gaia2_runner.config import (
    apply_overrides,
    load_config,
    load_env_file,
    redacted,
)
from gaia2_runner.config.schema import SETTINGS
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env

DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def write(tmp_path: Path, text: str, name: str = "run.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_run_dataset_flag_is_a_setting_and_back():
    params = set(inspect.signature(commands_run.run_dataset_cmd).parameters) - {
        "env_file",
        "dry_run",
        "overwrite",
    }
    old_flags = {options.OLD_FLAG_PREFIX + s.name for s in SETTINGS if s.deprecated_flag}
    assert params == {s.name for s in SETTINGS} | old_flags


def test_full_config_resolves_relative_to_its_file(tmp_path, monkeypatch):
    (tmp_path / "cfg").mkdir()
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("OUT_BASE", str(tmp_path / "outs"))
    path = write(
        tmp_path / "cfg",
        """
[target]
dataset_root = "../data"
splits = ["search", "time"]
limit = 3

[agent]
image = "localhost/gaia2-agent:latest"
provider = "openai-compat"
model = "m"
base_url = "http://host.containers.internal:8000/v1"
options = { max_steps_per_turn = 5 }

[judge]
provider = "openai-compat"
model = "j"

[run]
timeout = 300
concurrency = 3
pass_at = 2
output_dir = "${OUT_BASE}/x"
""",
    )
    config = apply_overrides(load_config(path), {})
    assert config.target.dataset_root == tmp_path / "data"
    assert config.target.splits == ["search", "time"] and config.target.limit == 3
    assert config.run.output_dir == tmp_path / "outs" / "x"
    assert (config.run.timeout, config.run.concurrency, config.run.pass_at) == (300.0, 3, 2)
    assert config.agent.options == {"max_steps_per_turn": 5}


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('[run]\noutput_dir = "o"\ntimeot = 3\n', "run.toml:3 [run] timeot: unknown key"),
        ('[run]\nconcurrency = "4"\n', "run.toml:2 [run] concurrency: expected an integer"),
        ("[runn]\n", "run.toml:1: unknown section [runn]"),
        ("[run\n", "invalid TOML"),
        ("[target]\nsplits = 3\n", "expected a split name"),
        # every TOML form gets its line: dotted keys, sub-tables, quoted keys, arrays of tables
        ("a = 1\n[run]\n", "run.toml:1: unknown section [a]"),
        ('[run]\noutput_dir = "o"\n\n[run.timeout]\nx = 1\n', "run.toml:4 [run] timeout: expected a number"),
        ('run.concurrency = "x"\n', "run.toml:1 [run] concurrency: expected an integer"),
        ('[agent]\n"image" = 3\n', "run.toml:2 [agent] image: expected a string"),
        ("[[target]]\n", "run.toml:1: target must be a [target] table"),
        ("[run]\nretry = 1\n", "expected true or false"),
    ],
)
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
    config = apply_overrides(
        load_config(path), {"concurrency": 5, "splits": "a, b", "agent_options": ["x=1", "y=z"]}
    )
    assert config.run.concurrency == 5 and config.target.splits == ["a", "b"]
    assert config.agent.options == {"x": 1, "y": "z"}
    assert config.where("concurrency") == "--concurrency"


def test_env_file_loads_but_real_environment_wins(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("G2_TEST_A=from-file\nG2_TEST_B=from-file\n")
    monkeypatch.setenv("G2_TEST_B", "real")
    monkeypatch.delenv("G2_TEST_A", raising=False)
    (tmp_path / "sub").mkdir()
    assert load_env_file(None, tmp_path / "sub") is None  # parents are never searched
    assert load_env_file(None, tmp_path) == tmp_path / ".env"
    import os

    assert os.environ["G2_TEST_A"] == "from-file" and os.environ["G2_TEST_B"] == "real"
    monkeypatch.delenv("G2_TEST_A")
    with pytest.raises(Gaia2Error, match="--env-file"):
        load_env_file(tmp_path / "missing.env", tmp_path)


def test_an_explicit_env_file_replaces_the_one_in_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("G2_TEST_C=from-cwd\nG2_TEST_D=from-cwd\n")
    (tmp_path / "chosen.env").write_text("G2_TEST_C=from-chosen\n")
    for name in ("G2_TEST_C", "G2_TEST_D"):
        monkeypatch.delenv(name, raising=False)
    assert load_env_file(tmp_path / "chosen.env", tmp_path) == tmp_path / "chosen.env"
    import os

    assert os.environ["G2_TEST_C"] == "from-chosen" and "G2_TEST_D" not in os.environ
    (tmp_path / "bad.env").write_bytes("K=v\n".encode("utf-16"))
    with pytest.raises(Gaia2Error, match="bad.env is UTF-16"):
        load_env_file(tmp_path / "bad.env", tmp_path)


def agent_config(tmp_path, **overrides):
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


def test_keys_come_from_the_environment_and_missing_ones_fail_fast(tmp_path):
    config = agent_config(tmp_path, api_key_env="MY_AGENT_KEY")
    env = container_env(
        config, {"MY_AGENT_KEY": "sk-agent", "OPENAI_API_KEY": "sk-judge", "https_proxy": "http://p:3128"}
    )
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


def test_home_and_plain_var_expand_and_undefined_var_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("G2_DATA", str(DEMO))
    path = write(
        tmp_path, '[target]\ndataset_root = "$G2_DATA"\nsplits = "scenarios"\n[run]\noutput_dir = "~/out"\n'
    )
    config = apply_overrides(load_config(path), {})
    assert config.target.dataset_root == DEMO and config.target.splits == ["scenarios"]
    assert config.run.output_dir == tmp_path / "home" / "out"
    monkeypatch.delenv("G2_UNSET_X", raising=False)
    with pytest.raises(Gaia2Error, match=r"run.toml:2 \[run\] output_dir: undefined variable"):
        load_config(write(tmp_path, '[run]\noutput_dir = "${G2_UNSET_X}/o"\n'))


@pytest.mark.parametrize(
    "overrides, fragment",
    [
        ({"provider": "openai"}, "needs a model"),
        ({"provider": "mystery", "model": "m"}, "unknown provider 'mystery'"),
        ({"judge_provider": "oracle", "judge_model": "j"}, "unknown judge provider 'oracle'"),
        ({"judge_provider": "openai"}, "a judge provider needs a model"),
        ({"splits": ""}, "no splits listed"),
        ({"limit": 0}, "limit must be at least 1"),
        ({"pass_at": 0}, "pass_at must be at least 1"),
        ({"timeout": -1.0}, "timeout must be positive"),
        ({"log_level": "LOUD"}, "log_level must be"),
    ],
)
def test_whole_config_checks(tmp_path, overrides, fragment):
    with pytest.raises(Gaia2Error, match=fragment):
        apply_overrides(load_config(None), {"dataset_root": DEMO, "output_dir": tmp_path, **overrides})


def test_local_dataset_path_that_does_not_exist(tmp_path):
    path = write(tmp_path, '[target]\ndataset = "./not-there"\n[run]\noutput_dir = "o"\n')
    with pytest.raises(Gaia2Error, match=r"run.toml:2 \[target\] dataset: .*not-there not found"):
        apply_overrides(load_config(path), {})
    hub = apply_overrides(load_config(None), {"dataset": "org/name", "output_dir": tmp_path})
    assert hub.target.dataset == "org/name"  # a hub id is left alone


def test_env_file_next_to_the_config_and_explicit_env_file(tmp_path, monkeypatch):
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / ".env").write_text("G2_TEST_C=next-to-config\n")
    (tmp_path / "other.env").write_text("G2_TEST_D=explicit\n")
    for name in ("G2_TEST_C", "G2_TEST_D"):
        monkeypatch.delenv(name, raising=False)
    assert load_env_file(None, tmp_path / "cfg") == tmp_path / "cfg" / ".env"
    assert load_env_file(tmp_path / "other.env", tmp_path / "cfg") == tmp_path / "other.env"
    import os

    assert (os.environ["G2_TEST_C"], os.environ["G2_TEST_D"]) == ("next-to-config", "explicit")
    for name in ("G2_TEST_C", "G2_TEST_D"):
        monkeypatch.delenv(name)


def test_which_providers_need_a_key(tmp_path):
    compat = agent_config(
        tmp_path,
        provider="openai-compat",
        base_url="http://h:1/v1",
        judge_provider="openai-compat",
        judge_base_url="http://h:1/v1",
    )
    env = container_env(compat, {})
    assert "GAIA2_AGENT_API_KEY" not in env and "GAIA2_JUDGE_API_KEY" not in env
    assert (env["GAIA2_AGENT_PROVIDER"], env["GAIA2_AGENT_BASE_URL"], env["GAIA2_JUDGE_PROVIDER"]) == (
        "openai-compat",
        "http://h:1/v1",
        "openai-compat",
    )
    keyed = agent_config(
        tmp_path, provider="openai-compat", api_key_env="COMPAT_KEY", judge_provider="openai-compat"
    )
    with pytest.raises(Gaia2Error, match=r"COMPAT_KEY is not set \(--api-key-env\)"):
        container_env(keyed, {})
    direct = agent_config(
        tmp_path,
        provider="anthropic",
        api_key="sk-direct",
        judge_provider="gemini",
        agent_options=["temperature=0.5"],
    )
    env = container_env(direct, {"GEMINI_API_KEY": "g"})
    assert env["GAIA2_AGENT_API_KEY"] == "sk-direct" and env["GAIA2_JUDGE_API_KEY"] == "g"
    assert (
        json.loads(env["GAIA2_AGENT_OPTIONS"]) == {"temperature": 0.5} and env["GAIA2_AGENT_MODEL"] == "gpt"
    )


def test_missing_key_names_the_config_line(tmp_path):
    path = write(
        tmp_path,
        f'[target]\ndataset_root = "{DEMO}"\n[agent]\nprovider = "openai"\nmodel = "m"\n'
        'api_key_env = "G2_NOT_SET"\n[judge]\nmodel = "j"\n[run]\noutput_dir = "o"\n',
    )
    with pytest.raises(Gaia2Error, match=r"G2_NOT_SET is not set \(.*run.toml:6 \[agent\] api_key_env\)"):
        container_env(apply_overrides(load_config(path), {}), {"OPENAI_API_KEY": "j"})


def test_redacted_keeps_names_and_scrubs_hidden_secrets(tmp_path):
    config = agent_config(
        tmp_path,
        api_key_env="MY_KEY",
        agent_options=['extra_headers={"x": 1}', "auth_token=hunter3", "temperature=0", "max_tokens=512"],
    )
    # Credentials in URLs are refused up front (next test); redaction still hides them if one slips in.
    config = replace(config, agent=replace(config.agent, base_url="https://bob:hunter2@llm.example/v1"))
    doc = redacted(config)
    dumped = json.dumps(doc)
    assert "hunter2" not in dumped and "hunter3" not in dumped
    assert (
        doc["agent"]["api_key_env"] == "MY_KEY"
        and doc["agent"]["base_url"] == "https://(redacted)@llm.example/v1"
    )
    assert doc["agent"]["options"]["max_tokens"] == 512 and doc["agent"]["options"]["auth_token"] == "(set)"
    assert doc["agent"]["options"]["temperature"] == 0 and doc["target"]["dataset_root"] == str(DEMO)


def test_credentials_in_a_base_url_are_refused(tmp_path):
    for name in ("base_url", "judge_base_url"):
        with pytest.raises(
            Gaia2Error, match=f"--{name.replace('_', '-')}: the URL holds credentials"
        ) as info:
            agent_config(tmp_path, **{name: "https://bob:hunter2@llm.example/v1"})
        assert "hunter2" not in str(info.value)


def test_oracle_quickstart_resolves_to_the_demo_split():
    from gaia2_runner.targets.resolve import resolve_targets

    config = apply_overrides(load_config(DEMO.parent / "configs" / "oracle_quickstart.toml"), {})
    refs = resolve_targets(config.target)
    assert {r.split for r in refs} == {"scenarios"} and len(refs) == len(list(DEMO.glob("*.json")))
    assert config.run.output_dir.resolve() == (DEMO.parents[1] / "out" / "oracle_quickstart").resolve()
    assert container_env(config, {}) == {"GAIA2_RUNTIME": "oracle"}


@pytest.mark.parametrize(
    "path", sorted((DEMO.parent / "configs").glob("template_*.toml")), ids=lambda p: p.stem
)
def test_templates_pass_every_check_given_their_key(path):
    config = apply_overrides(load_config(path), {})
    assert config.agent.image == "localhost/gaia2-agent:latest" and config.judge.model
    keys = {name: f"sk-{name}" for name in (config.agent.api_key_env, config.judge.api_key_env)}
    env = container_env(config, keys)
    assert env["GAIA2_RUNTIME"] == "agent" and env["GAIA2_AGENT_API_KEY"] == f"sk-{config.agent.api_key_env}"
    assert env["GAIA2_JUDGE_API_KEY"] == f"sk-{config.judge.api_key_env}"
    with pytest.raises(Gaia2Error, match=f"{config.agent.api_key_env} is not set"):
        container_env(config, {})


def test_dry_run_plan_shows_what_will_run(tmp_path):
    from rich.console import Console

    from gaia2_runner.cli.plan_view import describe_plan
    from gaia2_runner.targets.resolve import resolve_targets

    config = agent_config(tmp_path, pass_at=3, concurrency=2, limit=2)
    console = Console(record=True, width=200)
    console.print(describe_plan(config, resolve_targets(config.target)))
    text = console.export_text()
    for fragment in (
        "localhost/gaia2-oracle:latest",
        "openai / gpt",
        "openai / judge",
        "pass_at 3",
        "concurrency 2",
        str(tmp_path),
        "splits all; at most 2 per split",
        "scenarios",
    ):
        assert fragment in text


def test_every_setting_has_a_default_from_the_dataclasses():
    from gaia2_runner.config import setting_default

    defaults = {s.name: setting_default(s.name) for s in SETTINGS}
    assert (defaults["image"], defaults["provider"], defaults["health_timeout"], defaults["pass_at"]) == (
        "localhost/gaia2-oracle:latest",
        "oracle",
        60.0,
        1,
    )
    assert defaults["timeout"] is None and defaults["retry"] is False and defaults["concurrency"] >= 1


def test_time_speed_from_toml_and_flag_reaches_the_container_and_the_fingerprint(tmp_path):
    from gaia2_runner.output.fingerprint import differences, fingerprint

    path = tmp_path / "c.toml"
    path.write_text(f'[target]\ndataset_root = "{DEMO}"\n[run]\noutput_dir = "out"\ntime_speed = 10\n')
    config = apply_overrides(load_config(path), {})
    assert config.run.time_speed == 10.0
    assert container_env(config, {})["GAIA2_TIME_SPEED"] == "10.0"
    flagged = apply_overrides(load_config(path), {"time_speed": 2.5})
    assert container_env(flagged, {})["GAIA2_TIME_SPEED"] == "2.5"
    # ARE's real time (1) is the default: no variable, and fingerprints written before the setting match.
    plain = apply_overrides(load_config(None), {"dataset_root": DEMO, "output_dir": tmp_path})
    assert "GAIA2_TIME_SPEED" not in container_env(plain, {})
    prints = [fingerprint(c, image_id="i", runtime="oracle", scenarios=[]) for c in (plain, config)]
    assert "time_speed" not in prints[0]["settings"]
    assert differences(prints[0], prints[1]) == ["time_speed null -> 10.0"]


@pytest.mark.parametrize("value", [0.5, 0, 101, float("nan"), float("inf")])
def test_time_speed_out_of_range_is_one_error(tmp_path, value):
    with pytest.raises(Gaia2Error, match=r"time_speed must be between 1 and 100"):
        apply_overrides(
            load_config(None), {"dataset_root": DEMO, "output_dir": tmp_path, "time_speed": value}
        )
