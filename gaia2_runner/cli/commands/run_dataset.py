"""`run-dataset`: a scenario, a split or a dataset, through the one run path in launch.py."""

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
from gaia2_runner.config.setting import PANELS


@friendly
@with_settings(settings_named())
def run_dataset_cmd(
    env_file: str | None = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP, rich_help_panel=PANELS["execution"]),
    overwrite: bool = typer.Option(
        False, "--overwrite", help=OVERWRITE_HELP, rich_help_panel=PANELS["output"]
    ),
    settings: dict[str, Any] = None,  # type: ignore[assignment]
) -> None:
    """Run a scenario, a split or a dataset, N containers at a time, k runs each.

    Rerunning the same command resumes where it stopped. Exit code 0 when every run got a
    verdict, 1 when some ended without one (rerun those with --retry), 2 for a usage problem,
    130 when interrupted (rerun the command to resume).
    """
    config = build_config(None, settings, env_file)
    raise typer.Exit(
        exit_code(
            launch(
                config,
                command="run-dataset",
                out=out,
                err=err,
                retry=bool(settings.get("retry")),
                dry_run=dry_run,
                overwrite=overwrite,
            )
        )
    )
