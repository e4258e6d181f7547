"""--sim-generation-time: declared once (config/schema.py), normalised once when read (config/load.py),
sent to the container when not ARE's default (execution/container_env.py), recorded in run_config.json,
the fingerprint (not for the oracle, and absent for "off", so directories written before the setting
match) and result.json."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env
from gaia2_runner.output.fingerprint import differences, fingerprint
from gaia2_runner.output.result import ScenarioResult
from gaia2_runner.output.run_record import run_record

DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
VAR = "GAIA2_SIM_GENERATION_TIME"
AGENT = {
    "provider": "openai",
    "model": "m",
    "api_key": "k",
    "judge_provider": "openai",
    "judge_model": "j",
    "judge_api_key": "k",
}


def configured(tmp_path: Path, toml: str = "", **overrides):
    path = tmp_path / "c.toml"
    path.write_text(f'[target]\ndataset_root = "{DEMO}"\n[run]\noutput_dir = "out"\n{toml}')
    return apply_overrides(load_config(path), {**AGENT, **overrides})


def test_default_is_measured_and_sends_nothing(tmp_path):
    config = configured(tmp_path)
    assert config.run.sim_generation_time == "measured"
    assert VAR not in container_env(config, {})  # the daemon's default is ARE's too
    assert (
        fingerprint(config, image_id="i", runtime="agent", scenarios=[])["settings"]["sim_generation_time"]
        == "measured"
    )
    record = run_record(
        config,
        command="run",
        run_index=1,
        pass_at=1,
        retry=False,
        started_at="t",
        finished_at=None,
        scenarios=[],
    )
    assert record["config"]["run"]["sim_generation_time"] == "measured"


def test_toml_and_flag_are_normalised_once_and_reach_the_container(tmp_path):
    config = configured(tmp_path, 'sim_generation_time = " Fixed: 2.50 "\n')
    assert config.run.sim_generation_time == "fixed:2.5"
    assert container_env(config, {})[VAR] == "fixed:2.5"
    flagged = configured(tmp_path, sim_generation_time="OFF")
    assert (flagged.run.sim_generation_time, container_env(flagged, {})[VAR]) == ("off", "off")


def test_fingerprint_tells_modes_apart_and_matches_directories_from_before_the_setting(tmp_path):
    off, measured = configured(tmp_path, sim_generation_time="off"), configured(tmp_path)
    prints = [fingerprint(c, image_id="i", runtime="agent", scenarios=[]) for c in (off, measured)]
    assert "sim_generation_time" not in prints[0]["settings"]  # what the runner did before: the clock ran on
    assert differences(prints[0], prints[1]) == [
        "sim_generation_time null -> measured (it ran as --sim-generation-time off: pass that to resume it)"
    ]
    assert differences(
        prints[1], {**prints[1], "settings": {**prints[1]["settings"], "sim_generation_time": "fixed:1"}}
    ) == ["sim_generation_time measured -> fixed:1"]  # the hint is for old directories only
    oracle = apply_overrides(load_config(None), {"dataset_root": DEMO, "output_dir": tmp_path})
    assert (
        "sim_generation_time"
        not in fingerprint(oracle, image_id="i", runtime="oracle", scenarios=[])["settings"]
    )


@pytest.mark.parametrize("value", ["fixed", "fixed:-1", "fixed:nan", "fixed:99999", "random", "sometimes"])
def test_a_bad_value_is_one_error_naming_the_place_and_the_syntax(tmp_path, value):
    with pytest.raises(
        Gaia2Error,
        match=r"c\.toml:\d+ \[run\] sim_generation_time: sim_generation_time must be "
        r"measured, off or fixed:N",
    ):
        configured(tmp_path, f'sim_generation_time = "{value}"\n')
    with pytest.raises(
        Gaia2Error, match=r"--sim-generation-time: sim_generation_time must be measured, off or fixed:N"
    ):
        configured(tmp_path, sim_generation_time=value)


def test_result_keeps_the_daemons_account_and_drops_anything_else():
    result = ScenarioResult("s")
    result.apply_status(
        {
            "status": "completed",
            "judgment": {"success": True},
            "sim_generation_time": {
                "mode": "measured",
                "calls_held": 3,
                "held_s": 4.5,
                "advanced_s": "lots",
                "extra": [1],
            },
        }
    )
    assert result.sim_generation_time == {
        "mode": "measured",
        "calls_held": 3,
        "held_s": 4.5,
        "advanced_s": None,
    }
    assert result.to_dict()["sim_generation_time"]["mode"] == "measured"
    result.apply_status({"status": "completed", "judgment": {"success": True}, "sim_generation_time": "x"})
    assert result.sim_generation_time is None
