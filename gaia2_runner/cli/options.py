"""Command-line options generated from the settings table (config/schema.py).

Every command that takes settings declares them once, here: `--judge-model` has the same name,
type and help text wherever it appears, and a TOML key cannot exist without its flag.
"""

from __future__ import annotations

import functools
import inspect
import sys
import typing
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import typer
import typer.models

from gaia2_runner.config import SETTINGS, Setting
from gaia2_runner.output.read.verdicts import CURRENT

# How each kind of setting reads on the command line (None: not given, the config file decides).
_KIND_TYPES: dict[str, Any] = {
    # Paths arrive as text: click's Path type would reject some (NUL bytes) with a usage panel
    # before our checks can name the setting and the fix.
    "str": str | None,
    "path": str | None,
    "int": int | None,
    "float": float | None,
    "bool": bool,
    "splits": str | None,
    "options": list[str] | None,
    "env": list[str] | None,
    "hosts": list[str] | None,
    "shard": str | None,
}


def settings_named(*sections: str, exclude: Iterable[str] = ()) -> list[Setting]:
    """The settings of `sections` (all sections when none are named), minus `exclude`."""
    skip = set(exclude)
    return [s for s in SETTINGS if (not sections or s.section in sections) and s.name not in skip]


def _option(setting: Setting, help_override: str | None) -> inspect.Parameter:
    help_text = help_override or setting.help
    if setting.kind == "bool":
        default = typer.Option(False, setting.flag, help=help_text, rich_help_panel=setting.help_panel)
    else:
        default = typer.Option(
            None, setting.flag, help=help_text, show_default=False, rich_help_panel=setting.help_panel
        )
    return inspect.Parameter(
        setting.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=_KIND_TYPES[setting.kind]
    )


OLD_FLAG_PREFIX = "deprecated__"  # the parameter of a setting's old flag (hidden from --help)


def _old_option(setting: Setting) -> inspect.Parameter:
    assert setting.deprecated_flag is not None  # called only for the settings with an old flag
    default = typer.Option(None, setting.deprecated_flag, hidden=True)
    return inspect.Parameter(
        OLD_FLAG_PREFIX + setting.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=_KIND_TYPES[setting.kind],
    )


def with_settings(
    settings: list[Setting], help_overrides: dict[str, str] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add one option per setting to a command; the command receives them as `settings`, a dict
    of name -> value with None (or False for flags) for what was not given."""
    overrides = help_overrides or {}

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(fn, include_extras=True)  # keeps Annotated options (EngineOption)
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in inspect.signature(fn).parameters.values()
            if p.name != "settings"
        ]
        taken = {p.name for p in own}
        added = [_option(s, overrides.get(s.name)) for s in settings if s.name not in taken]
        names = [p.name for p in added]
        old = {s.name: s for s in settings if s.deprecated_flag and s.name in names}
        added += [_old_option(s) for s in old.values()]
        negative = {s.name for s in settings if s.negative}

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            for name, setting in old.items():  # an old flag, still accepted: the new one wins
                value = kwargs.pop(OLD_FLAG_PREFIX + name)
                if value is not None:
                    print(
                        f"warning: {setting.deprecated_flag} is deprecated: use {setting.flag}",
                        file=sys.stderr,
                    )
                    kwargs[name] = value if kwargs[name] is None else kwargs[name]
            values = {name: kwargs.pop(name) for name in names}
            values = {k: (None if v is False else False if k in negative else v) for k, v in values.items()}
            return fn(settings=values, **kwargs)

        # Settings first, so `--help` lists their panels (target, agent, judge, execution, output)
        # in that order; keyword-only throughout, as typer passes every parameter by name.
        keyword = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
        arguments = [p for p in keyword if isinstance(p.default, typer.models.ArgumentInfo)]
        params = arguments + added + [p for p in keyword if p not in arguments]
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate


# --engine where a command takes it outside a run's settings (images, check-image, clean, judge,
# run-config, submit): the setting's flag and help (config/schema.py); None: not given.
_ENGINE = next(s for s in SETTINGS if s.name == "engine")
EngineOption = Annotated[
    str | None,
    typer.Option(_ENGINE.flag, help=_ENGINE.help, show_default=False, rich_help_panel=_ENGINE.help_panel),
]


# The one option that picks a verdict set (output/read/verdicts.py) in ls, compare, export, view,
# serve and judge's report. Annotated, so the commands stay callable from Python with a plain str.
VERDICTS_HELP = (
    "Verdicts to read: current (the re-judge once `judge` ran, or what `judge --use` "
    "chose), original (the run's own) or rejudged."
)
# A plain str checked by verdicts.choose (one `error:` line naming current, original, rejudged), as
# typer here has no choice type for str options.
VERDICTS_FLAG = "--verdicts"
VerdictsOption = Annotated[str, typer.Option(VERDICTS_FLAG, metavar="SET", help=VERDICTS_HELP)]
DEFAULT_VERDICTS = CURRENT
