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

# Top-level commands, in --help order: (name, function, the one line --help lists it with; the
# docstring's full text stays for `gaia2-runner NAME --help`).
COMMANDS: tuple[tuple[str, Callable[..., Any], str], ...] = (
    ("aggregate", aggregate.aggregate_cmd, "Merge the shards of one plan into one output directory."),
    ("ls", ls.ls_cmd, "List runs: what ran, when, on which engine, how well."),
    ("compare", compare.compare_cmd, "Compare two runs: per-scenario flips, the rate difference."),
    ("export", export.export_cmd, "Export runs: csv, jsonl, parquet, ARE dumps, leaderboard rows."),
    ("judge", judge.judge_cmd, "Re-judge finished runs offline with ARE's judge."),
    ("run", run.run_cmd, "Run one scenario in a fresh container and print its verdict."),
    ("demo", demo.demo_cmd, "Run the oracle on every bundled demo scenario."),
    ("run-dataset", run_dataset.run_dataset_cmd, "Run a scenario, a split or a dataset, k runs each."),
    ("run-config", run_config.run_config_cmd, "Run what a TOML config describes (resumes)."),
    ("leaderboard", leaderboard.leaderboard_cmd, "Run a Gaia2 leaderboard entry and bundle it."),
    ("check-image", check_image.check_image_cmd, "Check an agent image against the container contract."),
    ("clean", clean.clean_cmd, "Remove containers left behind by runners that are gone."),
    ("view", view.view_cmd, "Write the static viewer: index.html and one page per run."),
    ("serve", serve.serve_cmd, "Serve the viewer live while results land."),
    ("submit", submit.submit_cmd, "Run a config's shards as a SLURM array, then aggregate."),
)
# `images SUBCOMMAND`: a group of its own (typer lists groups after the commands).
IMAGES_HELP = "Build the runner's container images."
IMAGES_COMMANDS: tuple[tuple[str, Callable[..., Any], str], ...] = (
    ("build", images.build_cmd, "Build the runner's images (missing or stale ones)."),
    ("list", images.list_cmd, "List the runner's images and whether each is present."),
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


def register(group: typer.Typer, commands: tuple[tuple[str, Callable[..., Any], str], ...]) -> None:
    for name, fn, short in commands:
        if not getattr(fn, HANDLED, False):  # a programming error: every command's errors go one way
            raise TypeError(f"command {name}: {fn.__qualname__} is not wrapped in errors.friendly")
        group.command(name, short_help=short)(fn)


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
