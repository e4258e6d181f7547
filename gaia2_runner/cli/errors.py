"""The one error handler of the command line (exit codes: gaia2_runner/exit_codes.py).

User mistakes arrive as Gaia2Error and are printed as one red `error:` line (exit code 2); only
real bugs show a traceback. Click's usage errors (a bad flag value, a missing option) get the same
one line through `OneLineErrors`, the app's group class; a command's own errors through `friendly`,
which the registry (registry.py) checks every command carries.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 carries its own copy of click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover - older typer uses click itself
    # click's own classes, which typer's copy mirrors: the names bind to one or the other
    from click.exceptions import ClickException, NoArgsIsHelpError  # type: ignore[assignment]
from rich.text import Text

from gaia2_runner.cli.console import err
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.exit_codes import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from gaia2_runner.text import printable

F = TypeVar("F", bound=Callable[..., Any])


# Set on a command by `friendly`: the registry refuses a command without it.
HANDLED = "_gaia2_errors_handled"


def print_error(message: str) -> None:
    """One red `error:` line on stderr: the only way an error reaches the terminal."""
    err.print(Text(printable(f"error: {message}"), style="red"), soft_wrap=True)


def print_interrupted() -> None:
    err.print(Text("interrupted", style="yellow"))


def friendly(fn: F | None = None, *, stop_line: str | None = None) -> Any:
    """Turn Gaia2Error into one red line and exit code 2, Ctrl-C into 130.

    The code is returned, not raised, so a command stays a plain function its tests can call
    (typer turns a command's return value into the exit code, see OneLineErrors.main). With
    `stop_line`, Ctrl-C is how the command is meant to end (`serve`): that line on stdout, exit 0.
    """

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return command(*args, **kwargs)
            except Gaia2Error as exc:
                print_error(exc.message)
                return EXIT_USAGE
            except KeyboardInterrupt:
                if stop_line is not None:
                    print(stop_line, flush=True)
                    return EXIT_OK
                print_interrupted()
                return EXIT_INTERRUPTED

        setattr(wrapper, HANDLED, True)
        return wrapper  # type: ignore[return-value]

    return decorate if fn is None else decorate(fn)


class OneLineErrors(TyperGroup):
    """Usage errors (a bad flag value, a missing option) as one `error:` line, like every other
    user mistake, instead of click's framed panel."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            rv = super().main(
                args,
                prog_name,
                complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except NoArgsIsHelpError as exc:  # no arguments: the help, as --help shows it
            if exc.ctx is not None:
                typer.echo(exc.ctx.get_help())
            sys.exit(EXIT_OK)
        except ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
            print_error(f"{' '.join(exc.format_message().split())}{where}")
            sys.exit(EXIT_USAGE)
        except (typer.Abort, KeyboardInterrupt):
            print_interrupted()
            sys.exit(EXIT_INTERRUPTED)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)
