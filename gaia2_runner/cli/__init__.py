"""The `gaia2-runner` command line: typer commands over the library API. Only this package prints,
and only it imports typer and rich. The app and its commands: registry.py."""

from gaia2_runner.cli.registry import app

__all__ = ["app"]
