"""Every command at 80 columns (issue 23): each command that runs without containers, run for real
in-process on synthetic outputs (tests/support/viewer_synth.py), prints no line over 80 characters:
the help of every command, ls, compare, export, view, `images list`, the report of a finished run
and a --dry-run plan; and `--help` groups the settings in panels."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from rich.console import Console
from typer.testing import CliRunner

from gaia2_runner import cli
from gaia2_runner.cli.launch import show_outcome
from gaia2_runner.cli.plan_view import describe_plan
from gaia2_runner.config import SETTINGS, apply_overrides, load_config
from gaia2_runner.config.setting import PANELS
from gaia2_runner.execution.dataset_run import DatasetOutcome
from gaia2_runner.output.summary import summarize
from gaia2_runner.targets.resolve import resolve_targets
from viewer_synth import dataset_tree, run_tree

WIDTH = 80
ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _commands() -> list[list[str]]:
    """Every command path of the app: `run`, `images list`, …"""
    group = typer.main.get_command(cli.app)
    paths = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        subcommands = getattr(command, "commands", None)
        paths += [[name, sub] for sub in subcommands] if subcommands else [[name]]
    return paths


def _long_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > WIDTH]


def _run(args: list[str], **env: str) -> str:
    result = runner.invoke(cli.app, args, env={"COLUMNS": str(WIDTH), **env})
    assert result.exit_code == 0, (args, result.output)
    return result.output


@pytest.mark.parametrize("path", [[]] + _commands(), ids=lambda p: " ".join(p) or "gaia2-runner")
def test_help_fits_80_columns(path: list[str]) -> None:
    text = _run([*path, "--help"])
    assert not _long_lines(text), "\n".join(_long_lines(text))


def test_the_top_level_help_lists_each_command_on_one_line() -> None:
    """--help's list is an index: one line per command (its short help; the full text is under
    `gaia2-runner NAME --help`), never a docstring wrapped mid-sentence."""
    rows = [line for line in _run(["--help"]).splitlines() if line.startswith("│ ")]
    commands = [row for row in rows if row[2:3] != " "]
    for path in _commands():
        assert len([row for row in commands if row[2:].split(" ", 1)[0] == path[0]]) == 1, path
    continuations = [row for row in rows if row[2:3] == " " and row.strip("│ ")]
    assert continuations == [], "\n".join(continuations)


@pytest.fixture
def outputs(tmp_path: Path) -> tuple[Path, Path]:
    # long directory names: what wraps is the path, never a line past 80
    a = tmp_path / ("a-long-output-directory-name-for-the-baseline-" * 2)
    b = tmp_path / ("b-long-output-directory-name-for-the-candidate-" * 2)
    dataset_tree(a, 12, pass_at=3, seed=1)
    dataset_tree(b, 12, pass_at=2, seed=2)
    return a, b


def test_reading_commands_fit_80_columns(outputs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = outputs
    single = run_tree(tmp_path / "single", {"s1": "pass", "s2": "fail"})
    texts = {
        "ls": _run(["ls", str(tmp_path)]),
        "compare": _run(["compare", str(a), str(b), "--html", str(tmp_path / "cmp.html")]),
        "compare one": _run(
            ["compare", str(single), str(run_tree(tmp_path / "one", {"s1": "fail", "x": "pass"}))]
        ),
        "view": _run(["view", "--output-dir", str(a)]),
        # a socket nothing listens on: the table shows "?" without talking to podman
        "images list": _run(["images", "list"], CONTAINER_HOST=f"unix://{tmp_path}/no-podman.sock"),
    }
    for fmt in ("csv", "jsonl", "parquet"):
        texts[f"export {fmt}"] = _run(["export", str(a), "--format", fmt])
    for name, text in texts.items():
        assert text.strip(), name
        assert not _long_lines(text), f"{name}:\n" + "\n".join(_long_lines(text))
    assert "gaia2-claude-code" in texts["images list"]  # whole, not folded mid-name
    assert "95% interval" in texts["compare"] and "no spread" in texts["compare one"]


def _render(renderable_or_fn) -> str:
    console = Console(width=WIDTH, record=True, force_terminal=False)
    renderable_or_fn(console)
    return console.export_text()


@pytest.mark.parametrize("pass_at", [1, 3])
def test_the_report_of_a_finished_run_fits_80_columns(tmp_path: Path, pass_at: int) -> None:
    out = tmp_path / ("a-rather-long-output-directory-name-" * 2)
    dataset_tree(out, 9, pass_at=pass_at)
    rows = [
        r.summary_record() | {"status": "completed", "agent_actions": 2}
        for r in __import__("gaia2_runner").load_rows(out)
    ]
    outcome = DatasetOutcome(
        out,
        [out],
        rows,
        summarize(rows, pass_at, 12.5, len(rows)),
        ran=len(rows),
        reused=0,
        interrupted=False,
    )
    for per_scenario in (False, True):
        text = _render(lambda console, flag=per_scenario: show_outcome(outcome, console, per_scenario=flag))
        assert not _long_lines(text), "\n".join(_long_lines(text))
        assert "results: " in text and "INCOMPLETE" in text


def test_a_dry_run_plan_fits_80_columns(tmp_path: Path) -> None:
    config = apply_overrides(
        load_config(None),
        {
            "dataset_root": str(ROOT / "examples" / "scenarios"),
            "output_dir": str(tmp_path / ("out-" * 20)),
            "provider": "openai-compat",
            "model": "Qwen/Qwen3-8B",
            "base_url": "http://host.containers.internal:8000/v1",
            "judge_provider": "openai-compat",
            "judge_model": "Qwen/Qwen3-8B",
            "pass_at": 3,
        },
    )
    text = _render(lambda console: console.print(describe_plan(config, resolve_targets(config.target))))
    assert not _long_lines(text), "\n".join(_long_lines(text))


def test_help_groups_the_settings_in_panels() -> None:
    text = _run(["run-dataset", "--help"])
    titles = [line.split("─ ", 1)[1].split(" ")[0] for line in text.splitlines() if line.startswith("╭─ ")]
    assert titles == ["Options", *PANELS.values()]  # target, agent, judge, execution, output, in that order
    assert {s.help_panel for s in SETTINGS} == set(PANELS.values())
    by_name = {s.name: s.help_panel for s in SETTINGS}
    assert by_name["output_dir"] == by_name["log_level"] == "Output" and by_name["timeout"] == "Execution"
    assert (
        by_name["judge_model"] == "Judge" and by_name["harness"] == "Agent" and by_name["splits"] == "Target"
    )


def test_retry_help_says_what_engine_select_reruns() -> None:
    """--retry reruns runs without a verdict and runs whose files were lost; an agent's time-out is
    judged, so it is kept (the help used to list 'timeout' among what it reruns)."""
    text = " ".join(_run(["run-dataset", "--help"]).replace("│", " ").split())
    assert "Also rerun the runs that ended without a verdict" in text and "time-out included" in text
    assert "(start failure, timeout, crash)" not in text
