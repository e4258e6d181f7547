"""`<command> <subcommand> --flag value`: one gaia2-cli style command, built with click at run time.

Click gives Meta's help, usage and error formats (its CLIs are click groups too): success prints
JSON (indent 2) on stdout and exits 0; an app error prints its message on stderr and exits 1; a
usage error prints click's usage + `Error:` line and exits 2. Underneath, each subcommand is one
`POST /call` of an ARE tool with ARE's argument names: ARE runs it, logs it and judges it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

import click

from ..tools_client import ToolApiError, call_tool, list_tools
from .surface import AppCommand, Flag, Subcommand, build_surface

_CONTEXT = {"terminal_width": 10000, "max_content_width": 10000}
_EXC_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Exit): ")


def _base_type(arg_type: str) -> str:
    text = arg_type.replace("typing.", "").replace("Optional[", "").strip()
    return text.split("|")[0].strip().split("[")[0].strip()


def convert(value: str, flag: Flag) -> Any:
    """A flag's text -> the value ARE expects: lists and dicts are JSON (`'["a@b.c"]'`); a list
    also takes comma-separated values."""
    base = _base_type(flag.type)
    if base not in ("list", "dict"):
        return value
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        if base == "list" and not value.lstrip().startswith("["):
            return [part.strip() for part in value.split(",") if part.strip()]
        raise click.BadParameter(f"Invalid JSON {'list' if base == 'list' else 'object'}: {value}") from None
    if base == "list" and not isinstance(parsed, list):
        if isinstance(parsed, (str, int, float)):
            return [str(parsed)]
        raise click.BadParameter(f"Expected a JSON list, got: {type(parsed).__name__}")
    if base == "dict" and not isinstance(parsed, dict):
        raise click.BadParameter(f"Expected a JSON object, got: {type(parsed).__name__}")
    return parsed


def _option(flag: Flag) -> click.Option:
    base = _base_type(flag.type)
    help_text = " ".join((flag.description or "").split())
    if base == "bool":
        decl = f"--{flag.flag}/--no-{flag.flag}" if flag.default is True else f"--{flag.flag}"
        return click.Option([decl, flag.arg], is_flag=True, help=help_text)
    kind = {"int": click.INT, "float": click.FLOAT}.get(base, click.STRING)
    if base in ("list", "dict"):
        help_text = (
            help_text + " " if help_text else ""
        ) + f"(JSON {'list' if base == 'list' else 'object'})"
    return click.Option([f"--{flag.flag}", flag.arg], type=kind, required=flag.required, help=help_text)


def render_output(sub: Subcommand, args: dict[str, Any], result: Any) -> str:
    """The text Meta's CLI prints for this subcommand's result."""
    spec = sub.output
    if spec == "text" and isinstance(result, str):
        return result
    if isinstance(spec, dict):
        data: dict[str, Any] = {}
        for key, value in spec.items():
            if key == "**":
                if isinstance(result, dict):
                    data.update(result)
                else:
                    data["data"] = result
            elif value == "$result":
                data[key] = result
            elif isinstance(value, str) and value.startswith("$arg:"):
                data[key] = args.get(value[5:], _default(sub, value[5:]))
            else:
                data[key] = value
        result = data
    return json.dumps(result, indent=2) + "\n"


def _default(sub: Subcommand, arg: str) -> Any:
    return next((f.default for f in sub.flags if f.arg == arg), None)


def collect_args(sub: Subcommand, params: dict[str, Any]) -> dict[str, Any]:
    """The ARE arguments of one invocation: only flags given on the command line, so ARE applies
    its own defaults (and logs the call exactly as its own agent's call would be logged)."""
    ctx = click.get_current_context()
    args: dict[str, Any] = {}
    for flag in sub.flags:
        value = params.get(flag.arg)
        if value is None or ctx.get_parameter_source(flag.arg) != click.core.ParameterSource.COMMANDLINE:
            continue
        try:
            args[flag.arg] = convert(value, flag) if isinstance(value, str) else value
        except click.BadParameter as exc:
            exc.param_hint = f"'--{flag.flag}'"
            raise
    return args


def call_and_print(sub: Subcommand, args: dict[str, Any]) -> None:
    """One ARE tool call through the daemon; Meta's output on stdout, or the error on stderr + exit 1."""
    try:
        outcome = call_tool(sub.tool, args)
    except ToolApiError as exc:
        _fail(str(exc))
    if not outcome.get("ok"):
        _fail(_EXC_PREFIX.sub("", str(outcome.get("error") or "error")))
    sys.stdout.write(render_output(sub, args, outcome.get("result")))


def _fail(message: str) -> None:
    print(message, file=sys.stderr)
    raise SystemExit(1)


Action = Callable[[Subcommand, dict[str, Any]], Any]


def build_group(command: AppCommand, action: Action = call_and_print) -> click.Group:
    """The command as a click group; a subcommand's callback hands its ARE arguments to `action`."""
    group = click.Group(
        name=command.name, help=f"{command.name} - {command.description}.", context_settings=_CONTEXT
    )
    for sub in command.subcommands.values():
        params: list[click.Parameter] = [_option(f) for f in sub.flags]
        group.add_command(
            click.Command(
                name=sub.name,
                params=params,
                help=sub.description or None,
                context_settings=_CONTEXT,
                callback=lambda _sub=sub, **kw: action(_sub, collect_args(_sub, kw)),
            )
        )
    return group


def parse(command: AppCommand, argv: list[str]) -> tuple[Subcommand, dict[str, Any]] | None:
    """(subcommand, ARE arguments) an argv stands for, without calling anything; click errors raise."""
    group = build_group(command, action=lambda sub, args: (sub, args))
    return group.main(args=argv, prog_name=command.name, standalone_mode=False)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print(
            "usage: python -m gaia2_container.runtimes.gaia2_cli <command> [subcommand] [--flag value ...]",
            file=sys.stderr,
        )
        return 2
    name, rest = argv[0], argv[1:]
    try:
        surface = build_surface(list_tools())
    except ToolApiError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    command = surface.get(name)
    if command is None:
        print(f"{name}: this app is not part of the scenario", file=sys.stderr)
        return 127
    try:
        build_group(command).main(args=rest, prog_name=name, standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0
