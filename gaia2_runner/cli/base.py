"""The typer application, its global options and the error handling every command shares.

User mistakes arrive as Gaia2Error and are printed as one red `error:` line (exit code 2); only
real bugs show a traceback. Commands live in commands_*.py and register themselves on `app`.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from typing import Any, Callable, Optional, TypeVar

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 carries its own copy of click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover - older typer uses click itself
    from click.exceptions import ClickException, NoArgsIsHelpError
from gaia2_runner import __version__
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.text import printable
from rich.console import Console
from rich.text import Text


class OneLineErrors(TyperGroup):
    """Usage errors (a bad flag value, a missing option) as one `error:` line, like every other
    user mistake, instead of click's framed panel."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
        except NoArgsIsHelpError as exc:  # no arguments: the help, as --help shows it
            if exc.ctx is not None:
                typer.echo(exc.ctx.get_help())
            sys.exit(EXIT_OK)
        except ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
            err.print(Text(printable(f"error: {' '.join(exc.format_message().split())}{where}"), style="red"),
                      soft_wrap=True)
            sys.exit(EXIT_USAGE)
        except (typer.Abort, KeyboardInterrupt):
            err.print(Text("interrupted", style="yellow"))
            sys.exit(EXIT_INTERRUPTED)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


app = typer.Typer(
    cls=OneLineErrors,
    name="gaia2-runner",
    help="Evaluate AI agents on Meta's Gaia2 benchmark, one podman container per scenario.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
images_app = typer.Typer(help="Build the runner's container images.", no_args_is_help=True)
app.add_typer(images_app, name="images")

out = Console()
err = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

# Exit codes shared by every command.
EXIT_OK, EXIT_NO_VERDICT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def friendly(fn: F) -> F:
    """Turn Gaia2Error into one red line and exit 2; Ctrl-C into exit 130."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Gaia2Error as exc:
            err.print(Text(printable(f"error: {exc.message}"), style="red"), soft_wrap=True)
            raise typer.Exit(EXIT_USAGE) from None
        except KeyboardInterrupt:
            err.print(Text("interrupted", style="yellow"))
            raise typer.Exit(EXIT_INTERRUPTED) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        out.print(f"gaia2-runner {__version__}")
        raise typer.Exit()


def _sigterm_as_interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


@app.callback()
def main(
    version: Optional[bool] = typer.Option(
        None, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    """Evaluate AI agents on Meta's Gaia2 benchmark, one podman container per scenario.

    Settings may come from a .env file (see .env.example); the real environment wins.
    """
    # `kill` should clean up containers like Ctrl-C does.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
