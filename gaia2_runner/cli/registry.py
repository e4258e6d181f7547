"""The `gaia2-runner` typer app: its global options and every command, registered here and only
here, in the order `--help` lists them.

A command is a plain function in commands/<name>.py (`run-dataset` in commands/run_dataset.py),
wrapped in the one error handler (errors.friendly); this module names it and adds it to the app.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

import typer

from gaia2_runner import __version__
from gaia2_runner.cli.commands import (
    aggregate,
    check_image,
    clean,
    compare,
    demo,
    export,
    images,
    judge,
    leaderboard,
    ls,
    run,
    run_config,
    run_dataset,
    serve,
    submit,
    view,
)
from gaia2_runner.cli.console import out
from gaia2_runner.cli.errors import HANDLED, OneLineErrors

# Top-level commands, in --help order: (name, function).
COMMANDS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("aggregate", aggregate.aggregate_cmd),
    ("ls", ls.ls_cmd),
    ("compare", compare.compare_cmd),
    ("export", export.export_cmd),
    ("judge", judge.judge_cmd),
    ("run", run.run_cmd),
    ("demo", demo.demo_cmd),
    ("run-dataset", run_dataset.run_dataset_cmd),
    ("run-config", run_config.run_config_cmd),
    ("leaderboard", leaderboard.leaderboard_cmd),
    ("check-image", check_image.check_image_cmd),
    ("clean", clean.clean_cmd),
    ("view", view.view_cmd),
    ("serve", serve.serve_cmd),
    ("submit", submit.submit_cmd),
)
# `images SUBCOMMAND`: a group of its own (typer lists groups after the commands).
IMAGES_HELP = "Build the runner's container images."
IMAGES_COMMANDS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("build", images.build_cmd),
    ("list", images.list_cmd),
)

app = typer.Typer(
    cls=OneLineErrors,
    name="gaia2-runner",
    help="Evaluate AI agents on Meta's Gaia2 benchmark, one container (podman or Docker) per scenario.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
images_app = typer.Typer(help=IMAGES_HELP, no_args_is_help=True)


def register(group: typer.Typer, commands: tuple[tuple[str, Callable[..., Any]], ...]) -> None:
    for name, fn in commands:
        if not getattr(fn, HANDLED, False):  # a programming error: every command's errors go one way
            raise TypeError(f"command {name}: {fn.__qualname__} is not wrapped in errors.friendly")
        group.command(name)(fn)


def _version(value: bool) -> None:
    if value:
        out.print(f"gaia2-runner {__version__}")
        raise typer.Exit()


def _sigterm_as_interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


@app.callback()
def main(
    version: bool | None = typer.Option(
        None, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Evaluate AI agents on Meta's Gaia2 benchmark, one container (podman or Docker) per scenario.

    Settings may come from a .env file (see .env.example); the real environment wins.
    """
    # `kill` should clean up containers like Ctrl-C does.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _sigterm_as_interrupt)


register(app, COMMANDS)
register(images_app, IMAGES_COMMANDS)
app.add_typer(images_app, name="images")
