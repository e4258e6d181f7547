"""The engine shown and recorded (issue 25): the fingerprint refuses resuming on the other engine,
run_config.json and `ls` carry it, the plan has its line, shards get it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli_support import assert_one_error_line
from dataset_support import oracle_config, run_cli, two_splits
from gaia2_runner import cli
from gaia2_runner.analysis import describe
from gaia2_runner.cli.plan_view import describe_plan
from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.config.engines import DOCKER, PODMAN
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.image_pin import pin_image
from gaia2_runner.execution.plan import claim_output_dir, plan_run, refuse_other_setup
from gaia2_runner.output.fingerprint import differences, fingerprint, recorded_engine
from gaia2_runner.output.run_record import run_record
from gaia2_runner.sandbox.engine import EngineInfo
from gaia2_runner.sandbox.engine_select import (
    describe_engine,
)
from gaia2_runner.targets.resolve import resolve_targets
from viewer_synth import run_tree

ROOT = Path(__file__).resolve().parents[2]


def _dataset_config(tmp_path: Path, **overrides: object):
    return apply_overrides(
        load_config(None),
        {
            "dataset_root": str(ROOT / "examples" / "scenarios"),
            "output_dir": str(tmp_path / "out"),
            **overrides,
        },
    )


def test_the_fingerprint_records_docker_and_refuses_the_other_engine_naming_both(tmp_path: Path) -> None:
    config = _dataset_config(tmp_path)
    old = fingerprint(config, image_id="aa", runtime=None, scenarios=[])  # podman: as before engines
    assert "engine" not in old["settings"]
    new = fingerprint(config, image_id="bb", runtime=None, scenarios=[], engine=DOCKER)
    assert new["settings"]["engine"] == DOCKER
    assert differences(old, new) == [
        "engine podman -> docker (it ran on podman: pass --engine podman to resume it)"
    ]
    assert differences(new, old)[0].startswith(
        "engine docker -> podman (it ran on docker: pass --engine docker"
    )
    again = fingerprint(config, image_id="aa", runtime=None, scenarios=[], engine=PODMAN)
    assert differences(old, again) == [] and recorded_engine(new) == DOCKER and recorded_engine({}) == PODMAN


def test_run_config_records_the_engine(tmp_path: Path) -> None:
    info = EngineInfo(DOCKER, "20.10.24", "1.41")
    doc = run_record(
        _dataset_config(tmp_path),
        command="run-dataset",
        run_index=1,
        pass_at=1,
        retry=False,
        started_at="t",
        finished_at=None,
        scenarios=[],
        engine=info.as_dict(),
    )
    assert doc["engine"] == {"engine": DOCKER, "version": "20.10.24", "api_version": "1.41"}
    assert "engine" not in run_record(
        _dataset_config(tmp_path),
        command="run",
        run_index=1,
        pass_at=1,
        retry=False,
        started_at="t",
        finished_at=None,
        scenarios=[],
    )


def test_ls_shows_the_engine_of_runs_that_recorded_one(tmp_path: Path) -> None:
    new, old = run_tree(tmp_path / "new", {"s1": "pass"}), run_tree(tmp_path / "old", {"s1": "pass"})
    doc = json.loads((new / "run_config.json").read_text())
    (new / "run_config.json").write_text(
        json.dumps({**doc, "engine": EngineInfo(DOCKER, "20.10", "1.41").as_dict()})
    )
    result = CliRunner().invoke(cli.app, ["ls", str(tmp_path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80 and "engine" in result.output
    assert sum(DOCKER in line for line in lines) == 1  # the old run's cell is blank
    assert describe(new).engine == DOCKER and describe(old).engine is None


def test_the_plan_shows_the_engine_line_at_80_columns(tmp_path: Path) -> None:
    config = _dataset_config(tmp_path)
    line = describe_engine(EngineInfo(DOCKER, "20.10.24+dfsg1", "1.41"), "auto: only docker answers")
    console = Console(width=80, record=True, force_terminal=False)
    console.print(describe_plan(config, resolve_targets(config.target), engine=line))
    text = console.export_text()
    assert "engine" in text and "docker 20.10.24+dfsg1 (API 1.41), auto: only docker answers" in " ".join(
        text.split()
    )
    assert max(map(len, text.splitlines())) <= 80
    rows = [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")]
    assert rows.index("engine") == rows.index("image") + 1


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--agent", "oracle", "--scenario", "x.json", "--output-dir", "o"],
        ["run-dataset", "--dataset-root", ".", "--output-dir", "o"],
        ["run-config", "--config", "x.toml"],
        ["images", "build"],
        ["images", "list"],
        ["check-image", "img"],
        ["clean"],
        ["clean", "--host", "unix:///a", "--host", "unix:///b"],
    ],
)
def test_a_bad_engine_flag_is_one_error_line(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    (tmp_path / "x.toml").write_text('[target]\nscenario = "x.json"\n[run]\noutput_dir = "o"\n')
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(cli.app, [*args, "--engine", "dokcer"])
    finally:
        os.chdir(cwd)
    assert_one_error_line(result, "--engine: unknown engine 'dokcer': use podman, docker, auto")


def test_submit_passes_the_engine_to_every_shard(tmp_path: Path) -> None:
    x = oracle_config(tmp_path / "x.toml", two_splits(tmp_path / "data"), tmp_path / "out")
    proc = run_cli(
        "submit",
        "--slurm",
        "--config",
        str(x),
        "--shards",
        "2",
        "--engine",
        DOCKER,
        "--dry-run",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert '--engine docker --shard "$shard/2"' in (tmp_path / "out" / "slurm" / "shards.sbatch").read_text()
    proc = run_cli("submit", "--slurm", "--config", str(x), "--shards", "2", "--dry-run", cwd=tmp_path)
    assert (
        "--engine" not in (tmp_path / "out" / "slurm" / "shards.sbatch").read_text()
    )  # the config's, or $GAIA2_ENGINE
    proc = run_cli("submit", "--slurm", "--config", str(x), "--shards", "2", "--engine", "x", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("error: --engine: unknown engine 'x'"), proc.stderr


class _Images:
    """An engine's image store as image_pin asks it: ids by tag or id, and the engine's name."""

    def __init__(self, engine_name: str, ids: dict[str, str]) -> None:
        self.engine, self._ids = engine_name, ids

    def image_id(self, ref: str) -> str | None:
        return self._ids.get(ref) or (ref if ref in self._ids.values() else None)


def test_a_pin_recorded_on_the_other_engine_is_not_looked_up_there() -> None:
    """podman's image ids mean nothing to Docker: the switch is refused by the fingerprint's engine
    line (naming both), not as "the image it started with is gone"."""
    recorded = [{"settings": {"image_id": "podman-id"}}]  # podman: recorded before engines
    on_docker = pin_image("img", recorded, _Images(DOCKER, {"img": "docker-id"}), fresh=False)
    assert (on_docker.gone, on_docker.image_id) == (False, "docker-id")
    on_podman = pin_image("img", recorded, _Images(PODMAN, {"img": "new-id"}), fresh=False)
    assert on_podman.gone  # the same engine: its pinned image really is gone


def test_resuming_on_the_other_engine_is_refused_naming_both_and_the_fix(tmp_path: Path) -> None:
    plan = plan_run(_dataset_config(tmp_path))
    image = plan.config.agent.image
    claim_output_dir(plan, _Images(PODMAN, {image: "podman-id"}))  # the run started on podman
    with pytest.raises(Gaia2Error) as caught:
        refuse_other_setup(plan, _Images(DOCKER, {image: "docker-id"}))
    message = caught.value.message
    assert "engine podman -> docker (it ran on podman: pass --engine podman to resume it)" in message
    assert "use a new --output-dir, or pass --overwrite" in message and "gone" not in message
    refuse_other_setup(plan, _Images(PODMAN, {image: "podman-id"}))  # the same engine resumes
