"""`<app> [function] [--arg value ...]`: the scenario's app tools as shell commands.

Arguments are parsed by the tool's declared types: numbers, booleans, and JSON for lists and
objects (`--attendees '["a@b.c"]'`); a list argument also accepts a comma-free single value.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .tools_client import ToolApiError, call_tool, list_tools


def _convert(value: str, arg_type: str) -> Any:
    base = arg_type.replace("typing.", "").split("|")[0].strip().split("[")[0].strip()
    if base == "int":
        return int(value)
    if base == "float":
        return float(value)
    if base == "bool":
        return value.lower() in ("1", "true", "yes", "y")
    if base in ("list", "dict"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return [value] if base == "list" else value
    if "None" in arg_type and value == "null":
        return None
    return value


def _usage_app(app: str, tools: list[dict[str, Any]]) -> str:
    lines = [f"usage: {app.lower()} <function> [--arg value ...]", "", f"functions of {app}:"]
    for t in tools:
        first = (t["description"] or "").strip().splitlines()
        lines.append(f"  {t['function']:<36} {'[write] ' if t['write'] else ''}{first[0] if first else ''}")
    lines.append("")
    lines.append(f"`{app.lower()} <function> --help` lists a function's arguments.")
    return "\n".join(lines)


def _usage_function(app: str, tool: dict[str, Any]) -> str:
    lines = [f"usage: {app.lower()} {tool['function']} " + " ".join(
        f"--{a['name']} <{a['type']}>" if not a["has_default"] else f"[--{a['name']} <{a['type']}>]" for a in tool["args"]
    ), "", tool["description"] or "", "", "arguments:"]
    for a in tool["args"]:
        default = f" (default: {a['default']!r})" if a["has_default"] else ""
        lines.append(f"  --{a['name']:<28} {a['type']:<14} {a['description'] or ''}{default}")
    return "\n".join(lines)


def _parse_args(tool: dict[str, Any], argv: list[str]) -> dict[str, Any]:
    types = {a["name"]: str(a["type"]) for a in tool["args"]}
    result: dict[str, Any] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        if not token.startswith("--"):
            raise ValueError(f"unexpected argument {token!r}: use --name value")
        name, _, inline = token[2:].partition("=")
        if name not in types:
            raise ValueError(f"unknown argument --{name}; known: {', '.join('--' + n for n in types)}")
        if inline:
            raw = inline
        else:
            if i + 1 >= len(argv):
                raise ValueError(f"--{name} needs a value")
            i += 1
            raw = argv[i]
        result[name] = _convert(raw, types[name])
        i += 1
    return result


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print("usage: python -m gaia2_container.runtimes.app_cli <App> [function] [args]", file=sys.stderr)
        return 2
    app, rest = argv[0], argv[1:]
    try:
        tools = [t for t in list_tools() if t["app"] == app]
    except ToolApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not rest or rest[0] in ("-h", "--help", "help"):
        print(_usage_app(app, tools))
        return 0
    by_name = {t["function"]: t for t in tools}
    tool = by_name.get(rest[0])
    if tool is None:
        print(f"error: {app} has no function {rest[0]!r}; `{app.lower()} --help` lists them", file=sys.stderr)
        return 2
    if any(a in ("-h", "--help") for a in rest[1:]):
        print(_usage_function(app, tool))
        return 0
    try:
        args = _parse_args(tool, rest[1:])
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        outcome = call_tool(tool["name"], args)
    except ToolApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not outcome.get("ok"):
        print(f"error: {outcome.get('error')}", file=sys.stderr)
        return 1
    print(json.dumps(outcome.get("result"), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
