"""`run-config --config X.toml`: what a TOML config describes, through the one run path in launch.py."""

from __future__ import annotations

import typer

from gaia2_runner.cli.console import err, out
from gaia2_runner.cli.errors import friendly
from gaia2_runner.cli.launch import (
    DRY_RUN_HELP,
    ENV_FILE_HELP,
    OVERWRITE_HELP,
    RETRY_HELP,
    build_config,
    exit_code,
    launch,
)
from gaia2_runner.cli.options import EngineOption
from gaia2_runner.config.schema import BY_NAME
from gaia2_runner.config.setting import PANELS

EXECUTION_PANEL, OUTPUT_PANEL = PANELS["execution"], PANELS["output"]


@friendly
def run_config_cmd(
    config_path: str = typer.Option(..., "--config", help="TOML run configuration."),
    retry: bool = typer.Option(
        False, "--retry", help=RETRY_HELP, rich_help_panel=BY_NAME["retry"].help_panel
    ),
    env_file: str | None = typer.Option(None, "--env-file", help=ENV_FILE_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help=DRY_RUN_HELP, rich_help_panel=EXECUTION_PANEL),
    overwrite: bool = typer.Option(False, "--overwrite", help=OVERWRITE_HELP, rich_help_panel=OUTPUT_PANEL),
    shard: str | None = typer.Option(
        None, "--shard", help=BY_NAME["shard"].help, rich_help_panel=BY_NAME["shard"].help_panel
    ),
    hosts: list[str] | None = typer.Option(
        None,
        "--host",
        help=BY_NAME["hosts"].help + " Replaces [run] hosts.",
        rich_help_panel=BY_NAME["hosts"].help_panel,
    ),
    no_preflight: bool = typer.Option(
        False,
        BY_NAME["preflight"].flag,
        help=BY_NAME["preflight"].help,
        rich_help_panel=BY_NAME["preflight"].help_panel,
    ),
    engine: EngineOption = None,
) -> None:
    """Run what a TOML config describes; rerunning it resumes where it stopped.

    Exit codes as for run-dataset.
    """
    config = build_config(
        config_path,
        {
            "retry": True if retry else None,
            "shard": shard,
            "hosts": hosts,
            "preflight": False if no_preflight else None,
            "engine": engine,
        },
        env_file,
    )
    raise typer.Exit(
        exit_code(
            launch(
                config,
                command="run-config",
                out=out,
                err=err,
                retry=retry,
                dry_run=dry_run,
                overwrite=overwrite,
            )
        )
    )
