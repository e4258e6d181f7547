"""Labels that say what ran (issue 23): agent kind, model, provider, judge, image id and runner
version, written by the runner into run_config.json and read into every row, `ls` and export."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cli_support import invoke
from gaia2_runner.analysis import COLUMNS, describe, export_rows, load_rows
from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.output.agent_kind import agent_kind
from gaia2_runner.output.read.labels import RunLabels
from gaia2_runner.output.run_record import run_record
from viewer_synth import dataset_tree, run_tree

COMMAND = "GAIA2_AGENT_COMMAND"
SECRET_COMMAND = "python3 agent.py --token s3cr3t-value"
# The columns exports wrote before the labels: their order must not change.
OLD_COLUMNS = (
    "scenario_id",
    "split",
    "run",
    "status",
    "success",
    "detail",
    "reason",
    "turns",
    "failed_turn",
    "actions",
    "tool_errors",
    "llm_calls",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "sim_start",
    "sim_end",
    "sim_elapsed_s",
    "wall_s",
    "started_at",
    "image",
    "runtime",
    "dir",
)
LABEL_COLUMNS = ("agent", "model", "provider", "judge", "image_id", "runner_version")


@pytest.mark.parametrize(
    ("agent", "custom", "kind"),
    [
        ({"provider": "oracle"}, False, "oracle"),
        (
            {"provider": "oracle"},
            True,
            "custom",
        ),  # the symptom: a custom command in the oracle image was "oracle"
        ({"provider": "openai", "harness": "claude-code", "runtime": "harness"}, True, "custom"),
        ({"provider": "openai", "harness": "claude-code", "runtime": "harness"}, False, "claude-code"),
        ({"provider": "openai", "harness": "are-default", "runtime": "are-default"}, False, "are-default"),
        ({"provider": "openai"}, False, "llm"),
        ({"provider": "openai", "runtime": "agent"}, False, "llm"),
        ({"provider": "oracle", "runtime": "none"}, False, "external"),
        ({}, False, "oracle"),
    ],
)
def test_agent_kind(agent: dict, custom: bool, kind: str) -> None:
    assert agent_kind(agent, custom_command=custom) == kind


def _config(tmp_path: Path, **overrides: object):
    scenario = tmp_path / "s.json"
    scenario.write_text("{}")
    return apply_overrides(
        load_config(None), {"scenario": str(scenario), "output_dir": str(tmp_path / "out"), **overrides}
    )


def _record(config, environ: dict[str, str]) -> dict:
    return run_record(
        config,
        command="run-dataset",
        run_index=1,
        pass_at=1,
        retry=False,
        started_at="t",
        finished_at=None,
        scenarios=[],
        image_id="sha256:" + "ab" * 32,
        environ=environ,
    )


def test_run_config_records_a_custom_command_from_env_or_the_host_never_its_value(tmp_path: Path) -> None:
    plain = _record(_config(tmp_path), {})
    assert plain["agent_kind"] == "oracle"
    by_flag = _record(_config(tmp_path, env=[f"{COMMAND}={SECRET_COMMAND}"]), {})
    by_host = _record(_config(tmp_path), {COMMAND: SECRET_COMMAND})  # passed on as a GAIA2_AGENT_* variable
    assert by_flag["agent_kind"] == by_host["agent_kind"] == "custom"
    assert "s3cr3t" not in json.dumps(by_flag) + json.dumps(by_host)
    # --env wins over the host, as in the container's variables: an empty value runs no command
    assert (
        _record(_config(tmp_path, env=[f"{COMMAND}="]), {COMMAND: SECRET_COMMAND})["agent_kind"] == "oracle"
    )
    llm = _record(_config(tmp_path, provider="openai", model="gpt-x"), {})
    assert llm["agent_kind"] == "llm"


def _set_config(root: Path, **changes: object) -> None:
    path = root / "run_config.json"
    doc = json.loads(path.read_text())
    for key, value in changes.items():
        if key in ("agent", "judge"):
            doc["config"][key] = value
        else:
            doc[key] = value
    path.write_text(json.dumps(doc))


def test_rows_carry_the_labels_of_their_run_and_exports_append_them(tmp_path: Path) -> None:
    labels_end = len(OLD_COLUMNS) + len(LABEL_COLUMNS)  # the verdict-set columns come after (issue 23)
    assert (
        COLUMNS[: len(OLD_COLUMNS)] == OLD_COLUMNS and COLUMNS[len(OLD_COLUMNS) : labels_end] == LABEL_COLUMNS
    )
    assert tuple(f for f in RunLabels.__dataclass_fields__) == LABEL_COLUMNS
    root = run_tree(tmp_path / "a", {"s1": "pass", "s2": "fail"})
    _set_config(
        root,
        agent_kind="custom",
        runner_version="9.9.9",
        image_id="sha256:" + "cd" * 32,
        judge={"provider": "openai", "model": "judge-m"},
    )
    rows = load_rows(root)
    assert {(r.agent, r.model, r.provider, r.judge, r.runner_version) for r in rows} == {
        ("custom", "gpt-x", "openai", "openai/judge-m", "9.9.9")
    }
    assert rows[0].image_id == "sha256:" + "cd" * 32
    path, count = export_rows(root, "csv")
    exported = list(csv.DictReader(path.open()))
    assert count == 2 and tuple(exported[0]) == COLUMNS
    assert {r["agent"] for r in exported} == {"custom"} and {r["judge"] for r in exported} == {
        "openai/judge-m"
    }


def test_a_directory_written_before_agent_kind_is_labelled_from_its_settings(tmp_path: Path) -> None:
    root = run_tree(tmp_path / "a", {"s1": "pass"})
    _set_config(root, agent={"provider": "oracle", "model": None, "env": {COMMAND: "(set)"}})
    assert load_rows(root)[0].agent == "custom"
    assert describe(root).agent == "custom"
    _set_config(root, agent={"provider": "oracle", "model": None, "env": {}})
    assert load_rows(root)[0].agent == "oracle"  # run_config.json changed: the labels are read again


def test_fingerprint_fills_what_run_config_lacks(tmp_path: Path) -> None:
    root = run_tree(tmp_path / "a", {"s1": "pass"})
    (root / "run_config.json").unlink()
    (root / "fingerprint.json").write_text(
        json.dumps(
            {
                "schema": 1,
                "settings": {
                    "runner_version": "0.2.0",
                    "image_id": "sha256:" + "ef" * 32,
                    "provider": "anthropic",
                    "model": "claude-x",
                    "runtime": "agent",
                    "agent_env": {},
                    "judge_provider": "openai",
                    "judge_model": "j",
                },
            }
        )
    )
    row = load_rows(root)[0]
    assert (row.agent, row.model, row.provider, row.judge, row.runner_version) == (
        "llm",
        "claude-x",
        "anthropic",
        "openai/j",
        "0.2.0",
    )


def test_labels_are_per_run_directory_and_hostile_values_are_dropped(tmp_path: Path) -> None:
    root = tmp_path / "k2"
    dataset_tree(root, 2, pass_at=2)
    _set_config(
        root / "run_2",
        agent={"provider": "anthropic", "model": "claude-y"},
        runner_version=["not", "a", "string"],
    )
    models = {(r.run, r.model, r.runner_version) for r in load_rows(root)}
    assert models == {(1, "claude-x", "0.1.0"), (2, "claude-y", None)}


def test_model_falls_back_to_what_the_relay_saw_called(tmp_path: Path) -> None:
    root = run_tree(tmp_path / "a", {"s1": "pass"})
    _set_config(root, agent={"provider": "anthropic", "harness": "claude-code"})
    result = root / "search" / "s1" / "result.json"
    doc = json.loads(result.read_text())
    doc["provider"] = {"by_model": {"claude-sonnet-4": {"input": 1, "output": 1, "calls": 1}}}
    result.write_text(json.dumps(doc))
    row = load_rows(root)[0]
    assert (row.agent, row.model) == ("claude-code", "claude-sonnet-4")


def test_ls_shows_the_agent_kind_model_judge_image_and_version(tmp_path: Path) -> None:
    root = run_tree(tmp_path / "a", {"s1": "pass"})
    _set_config(
        root,
        agent_kind="custom",
        runner_version="9.9.9",
        image_id="sha256:" + "cd" * 32,
        judge={"provider": "openai", "model": "judge-m"},
    )
    result = invoke(["ls", str(root)])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "custom · openai/gpt-x" in text and "judge openai/judge-m" in text
    assert "image " + "cd" * 6 in text and "v9.9.9" in text and "oracle" not in text


def test_an_agent_command_the_container_cannot_split_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaia2_runner.errors import Gaia2Error

    monkeypatch.delenv(COMMAND, raising=False)
    unbalanced = "python3 agent.py --token 's3cr3t"
    with pytest.raises(Gaia2Error, match="cannot be split into words") as caught:
        _config(tmp_path, env=[f"{COMMAND}={unbalanced}"])
    assert "--env" in str(caught.value) and "s3cr3t" not in str(caught.value)
    monkeypatch.setenv(COMMAND, unbalanced)  # the host's variable is passed on: checked the same way
    with pytest.raises(Gaia2Error, match="the environment's GAIA2_AGENT_COMMAND"):
        _config(tmp_path)
    assert _config(tmp_path, env=[f"{COMMAND}=sh -c 'echo \"a b\" | wc -w'"])  # --env wins; quotes balance


def test_a_custom_agent_on_the_default_provider_is_never_shown_as_oracle(tmp_path: Path) -> None:
    """The symptom (issue 33): a custom command run with the default provider (oracle) showed
    "custom · oracle" in ls, as if the oracle had run; the oracle provider is no model."""
    root = run_tree(tmp_path / "a", {"s1": "pass"})
    _set_config(root, agent_kind="custom", agent={"provider": "oracle", "model": None})
    assert describe(root).provider is None
    assert {(r.agent, r.provider) for r in load_rows(root)} == {("custom", None)}
    result = invoke(["ls", str(root)])
    assert result.exit_code == 0, result.output
    assert "custom · -" in result.output and "oracle" not in result.output
    _set_config(root, agent_kind="oracle")  # the oracle itself still says so
    assert "oracle · oracle" in invoke(["ls", str(root)]).output
