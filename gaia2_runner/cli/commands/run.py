"""`run --scenario X`: one scenario in a fresh container, through the one run path in launch.py."""

from __future__ import annotations

from typing import Any

import typer

from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.launch import (
    DRY_RUN_HELP,
    ENV_FILE_HELP,
    OVERWRITE_HELP,
    build_config,
    exit_code,
    launch,
)
from gaia2_runner.cli.options import settings_named, with_settings
from gaia2_runner.config import ORACLE_IMAGE
from gaia2_runner.config.setting import PANELS
from gaia2_runner.errors import Gaia2Error

# Settings that choose what to run: `run` takes one --scenario instead.
TARGET_ONLY = ("dataset", "dataset_root", "splits", "subset", "limit", "revision", "hub_config", "hub_split")


@friendly
@with_settings(settings_named(exclude=TARGET_ONLY + ("retry", "shard", "hosts")))
def run_cmd(
    scenario: str = typer.Option(
        ..., "--scenario", help="Gaia2 scenario JSON file.", rich_help_panel=PANELS["target"]
    ),
    image: str | None = typer.Option(
        None,
        "--image",
        rich_help_panel=PANELS["agent"],
        help=f"Image to run, e.g. {ORACLE_IMAGE} (default: the --agent's image).",
    ),
    output_dir: str = typer.Option(
        ...,
        "--output-dir",
        help="Artifacts go to OUTPUT_DIR/<scenario_id>/.",
        rich_help_panel=PANELS["output"],
    ),
    env_file: str | None = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP, rich_help_panel=PANELS["execution"]),
    overwrite: bool = typer.Option(
        False, "--overwrite", help=OVERWRITE_HELP, rich_help_panel=PANELS["output"]
    ),
    settings: dict[str, Any] = None,  # type: ignore[assignment]  # filled by with_settings
) -> None:
    """Run one scenario in a fresh container and print its verdict.

    The same run path as run-dataset (progress, run_config.json, results.jsonl, report), always
    starting afresh. Exit code 0 when the judge gave a verdict (pass or fail), 1 when there is
    none (error, timeout, crash), 2 for a usage problem.
    """
    if image is None and not settings.get("harness"):
        raise Gaia2Error("run needs --agent NAME or --image IMAGE (e.g. --agent oracle)")
    config = build_config(
        None, {**settings, "scenario": scenario, "image": image, "output_dir": output_dir}, env_file
    )
    result = launch(
        config,
        command="run",
        out=out,
        err=err,
        dry_run=dry_run,
        fresh=True,
        overwrite=overwrite,
        per_scenario=True,
    )
    raise typer.Exit(exit_code(result))
