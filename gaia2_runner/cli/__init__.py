"""The `gaia2-runner` command line: typer commands over the library API. Only this package prints,
and only it imports typer and rich."""

from gaia2_runner.cli import (  # noqa: F401 - register commands
    aggregate_command,
    analysis_commands,
    check_image_command,
    clean_command,
    commands_run,
    commands_view,
    images_command,
    submit_command,
)
from gaia2_runner.cli.base import app

__all__ = ["app"]
