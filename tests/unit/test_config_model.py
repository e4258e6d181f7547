"""The config classes (config/model.py) are written out for type checkers; the settings table
(config/schema.py) stays the owner of names, kinds and defaults. These tests keep the two in step
and pin what loading turns text into: typed hosts and shards, the host variables applied once."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from gaia2_runner.config import HostSpec, RunConfig, Shard, apply_overrides, load_config, redacted
from gaia2_runner.config.engines import AUTO, DOCKER, ENGINE_ENV
from gaia2_runner.config.environment import SWEEP_ENV
from gaia2_runner.config.model import SECTION_CLASSES
from gaia2_runner.config.schema import SECTIONS, SETTINGS
from gaia2_runner.config.setting import _TYPES
from gaia2_runner.errors import Gaia2Error

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "scenarios" / "demo_cab_order.json"
_NAMES = {"Path": Path, "HostSpec": HostSpec, "Shard": Shard, "Any": typing.Any}


def _type_text(hint: typing.Any) -> str:
    """A resolved annotation back as the table's words (`Path | None`, `tuple[HostSpec, ...]`)."""
    return str(hint).replace("pathlib.", "").replace("typing.", "").replace("gaia2_runner.config.values.", "")


def _declared(setting) -> str:
    return _type_text(eval(setting.annotation, {**_NAMES}))  # noqa: S307 - the table's own words


@pytest.mark.parametrize("section", SECTIONS)
def test_every_setting_has_a_field_of_its_type_and_every_field_a_setting(section):
    cls = SECTION_CLASSES[section]
    hints = typing.get_type_hints(cls)
    settings = {s.key: s for s in SETTINGS if s.section == section}
    assert set(hints) == set(settings), "a field without a setting, or a setting without a field"
    for key, setting in settings.items():
        assert _type_text(hints[key]) == _declared(setting), key


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_every_field_defaults_to_its_settings_default(setting, monkeypatch):
    monkeypatch.delenv(ENGINE_ENV, raising=False)
    monkeypatch.delenv(SWEEP_ENV, raising=False)
    field = next(f for f in dataclasses.fields(SECTION_CLASSES[setting.section]) if f.name == setting.key)
    if callable(setting.default):  # computed per machine (or from the environment): the same function
        assert field.default_factory is setting.default
    assert getattr(SECTION_CLASSES[setting.section](), setting.key) == setting.value_default()
    assert set(_TYPES) >= {setting.kind}


def _toml(tmp_path: Path, run: str) -> Path:
    path = tmp_path / "x.toml"
    path.write_text(f'[target]\nscenario = "{DEMO}"\n[run]\noutput_dir = "out"\n{run}')
    return path


def test_hosts_and_shard_are_parsed_once_into_typed_values(tmp_path):
    config = apply_overrides(
        load_config(_toml(tmp_path, 'shard = "2/8"\nhosts = ["unix:///a.sock=3", "tcp://h:1"]\n')),
        {"concurrency": 5},
    )
    assert config.run.shard == Shard(2, 8) and str(config.run.shard) == "2/8"
    # a host without =N follows the concurrency, also when a flag set it after the file
    assert config.run.hosts == (HostSpec("unix:///a.sock", 3, explicit=True), HostSpec("tcp://h:1", 5))
    assert redacted(config)["run"]["hosts"] == ["unix:///a.sock=3", "tcp://h:1"]
    assert redacted(config)["run"]["shard"] == "2/8"


def test_a_bad_shard_is_one_line_naming_its_place(tmp_path):
    with pytest.raises(Gaia2Error, match=r"x.toml:5 \[run\] shard: shard must be I/N"):
        load_config(_toml(tmp_path, 'shard = "9/8"\n'))


def test_the_host_variables_are_resolved_in_config_and_named_as_the_origin(tmp_path, monkeypatch):
    monkeypatch.setenv(ENGINE_ENV, DOCKER)
    monkeypatch.setenv(SWEEP_ENV, "0")
    config = apply_overrides(load_config(_toml(tmp_path, "")), {})
    assert (config.run.engine, config.run.sweep) == (DOCKER, False)
    assert config.where("engine") == ENGINE_ENV and config.where("sweep") == SWEEP_ENV
    assert apply_overrides(config, {"engine": AUTO, "sweep": True}).run.engine == AUTO
    monkeypatch.setenv(ENGINE_ENV, "x")
    with pytest.raises(Gaia2Error, match="GAIA2_ENGINE: unknown engine 'x'"):
        RunConfig()


def test_podman_wait_is_still_accepted_with_a_warning(tmp_path, capsys):
    config = load_config(_toml(tmp_path, "podman_wait = 30\n"))
    assert config.run.engine_wait == 30.0
    assert (
        "x.toml:5 [run] podman_wait: podman_wait is deprecated: call it engine_wait"
        in capsys.readouterr().err
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run-dataset",
            "--scenario",
            str(DEMO),
            "--output-dir",
            str(tmp_path / "o"),
            "--podman-wait",
            "7",
            "--dry-run",
            "--no-preflight",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert "warning: --podman-wait is deprecated: use --engine-wait" in proc.stderr
    assert "Traceback" not in proc.stderr
