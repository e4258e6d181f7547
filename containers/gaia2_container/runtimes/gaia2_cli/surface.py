"""Which commands, subcommands and flags the agent gets for this scenario, from the tool list.

Input: the tools as the daemon's `GET /tools` lists them (ARE's public names, so noise mode's
renamed tools are what the agent sees). Output: one `AppCommand` per app instance, named as Meta's
gaia2-cli names it (table.APPS); a second instance of a class gets a name derived from its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .table import APPS, COMMANDS, NOT_COMMANDS

# ARE documents the file systems' `**kwargs` as a (required) argument; it is no option of Meta's CLIs.
_NOT_FLAGS = frozenset({"kwargs"})


def kebab(name: str) -> str:
    """`add_calendar_event` -> `add-calendar-event`; `InternalContacts` -> `internal-contacts`."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name)
    return re.sub(r"[^a-z0-9]+", "-", spaced.lower()).strip("-")


@dataclass(frozen=True)
class Flag:
    flag: str  # without the dashes: `start-date`
    arg: str  # ARE's argument name: `start_datetime`
    type: str  # ARE's type string: `str`, `int`, `list[str] | None`, ...
    description: str
    required: bool
    default: Any = None


@dataclass(frozen=True)
class Subcommand:
    name: str  # `add-event`
    tool: str  # the ARE tool to call: `Calendar__add_calendar_event` (public name)
    description: str
    write: bool
    flags: list[Flag]
    output: Any = None  # table.py's output spec


@dataclass
class AppCommand:
    name: str  # `calendar`
    app: str  # ARE instance name: `Calendar`
    app_class: str  # `CalendarApp`
    description: str
    subcommands: dict[str, Subcommand] = field(default_factory=dict)


def _meta_entry(app: str, app_class: str) -> tuple[dict[str, Any] | None, int]:
    """(entry, rank): who claims a Meta name first. 0: Meta resolves the instance name itself
    (`Chats`, `Contacts`); 1: the instance is named like a class (the demos' `ContactsApp`);
    2: only the class matches (`InternalContacts`); 3: no Meta CLI."""
    for rank, key in ((0, "instances"), (1, "classes")):
        for entry in APPS:
            if app in entry[key]:
                return entry, rank
    for entry in APPS:
        if app_class in entry["classes"]:
            return entry, 2
    return None, 3


def _subcommand(tool: dict[str, Any], table: dict[str, tuple[str, dict[str, str], Any]]) -> Subcommand:
    are_function = tool.get("are_function") or tool["function"]
    public = tool["function"]
    entry = table.get(are_function)
    if entry is not None and public == are_function:
        name, flag_names, output = entry
    else:
        # Not in Meta's CLIs, or renamed by noise mode (Meta's name would give the original away).
        name, flag_names, output = kebab(public), (entry[1] if entry else {}), (entry[2] if entry else None)
    flags = [
        Flag(
            flag=flag_names.get(a["name"], kebab(a["name"])),
            arg=a["name"],
            type=str(a["type"]),
            description=a.get("description") or "",
            required=not a["has_default"],
            default=a.get("default"),
        )
        for a in tool["args"]
        if a["name"] not in _NOT_FLAGS
    ]
    return Subcommand(
        name=name,
        tool=tool["name"],
        description=tool.get("description") or "",
        write=bool(tool.get("write")),
        flags=flags,
        output=output,
    )


def build_surface(tools: Iterable[dict[str, Any]]) -> dict[str, AppCommand]:
    """Command name -> AppCommand for every app instance of the scenario that is a command."""
    by_app: dict[str, list[dict[str, Any]]] = {}
    classes: dict[str, str] = {}
    for tool in tools:
        by_app.setdefault(tool["app"], []).append(tool)
        classes[tool["app"]] = tool.get("app_class") or tool["app"]
    apps = [a for a in by_app if a not in NOT_COMMANDS and classes[a] not in NOT_COMMANDS]
    # Instances Meta names directly claim their names first (`Contacts` before `InternalContacts`).
    ranked = sorted(apps, key=lambda a: (_meta_entry(a, classes[a])[1], a))
    surface: dict[str, AppCommand] = {}
    for app in ranked:
        entry, _rank = _meta_entry(app, classes[app])
        name = entry["command"] if entry else kebab(app)
        if name in surface:
            name = kebab(app)
        while name in surface:
            name += "-2"
        table = COMMANDS.get(classes[app], {})
        command = AppCommand(
            name=name,
            app=app,
            app_class=classes[app],
            description=entry["description"] if entry else f"the {app} app",
        )
        for tool in sorted(by_app[app], key=lambda t: t["name"]):
            sub = _subcommand(tool, table)
            command.subcommands[sub.name] = sub
        surface[name] = command
    return dict(sorted(surface.items()))


def command_names(tools: Iterable[dict[str, Any]]) -> list[str]:
    return list(build_surface(tools))
