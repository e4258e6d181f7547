"""The instructions a CLI harness gets (its AGENTS.md / CLAUDE.md / GEMINI.md), in our own words.

They follow the rules of Meta's gaia2-cli template (`gaia2-cli/shared/AGENTS_TEMPLATE.md`): work
silently, act for the user and write as the user, the final reply of a turn is the message to the
user, notifications arrive as new messages (never poll), and only this scenario's commands are listed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from .surface import build_surface

_MESSAGING = ("messages", "chats")


def command_list(tools: Iterable[dict[str, Any]]) -> str:
    """`- \\`calendar\\` — the user's calendar ...`, one line per command of the scenario."""
    return "\n".join(f"- `{c.name}` — {c.description}" for c in build_surface(tools).values())


def _clock_line(sim_time: float | None) -> str:
    if sim_time is None:
        return ""
    stamp = time.strftime("%A %Y-%m-%d %H:%M:%S", time.gmtime(sim_time))
    return f"\nThe user's current date and time is {stamp} (UTC); `date` shows the current time.\n"


def render_instructions(
    tools: Iterable[dict[str, Any]],
    sim_time: float | None = None,
    exec_tool: str = "shell",
    home: str = "/gaia2/agent",
) -> str:
    """The instructions text for one scenario.

    tools: the daemon's `GET /tools` list (dicts); sim_time: the scenario's simulated time as a
    Unix timestamp, or None to leave the date out; exec_tool: what the harness calls its shell
    tool (`Bash`, `shell`, `run_shell_command`, `exec`, `terminal`); home: the agent's workspace.
    """
    tools = list(tools)
    commands = build_surface(tools)
    listing = command_list(tools) or "- (no app commands in this scenario)"
    example = next(iter(commands), "calendar")
    messaging = ", ".join(n for n in _MESSAGING if n in commands) or "messages, chats"
    return f"""# Gaia2 assistant

You are the user's personal assistant. You act for the user through the apps on their phone and
computer, which you reach only through the shell commands listed below.
{_clock_line(sim_time)}
## Workspace

Your working directory is `{home}`; you may create files there. The apps' data is not in files:
you read and change it only with the commands below.

## The app commands

Use your `{exec_tool}` tool to run these commands (they are programs on your PATH, not tools of
their own):

{listing}

Each command has subcommands with `--flag value` options. `<command> --help` lists the subcommands
and `<command> <subcommand> --help` their options, e.g. `{example} --help`. Results are printed as
JSON; errors go to stderr with a non-zero exit code. List and object options take JSON, e.g.
`--recipients '["ana@example.com"]'`.

{_rules_and_notifications(exec_tool, home, messaging)}"""


def _rules_and_notifications(exec_tool: str, home: str, messaging: str) -> str:
    """The instructions' rules (as Meta's gaia2-cli states them) and how notifications arrive."""
    return f"""## Rules

1. Work silently: no progress reports. Write to the user only when the task is done or cannot be done.
2. Do exactly what is asked, no more and no less.
3. Look things up yourself with the commands before asking the user for information.
4. If something fails, try another way before giving up.
5. If part of a request is unclear or contradictory, do the clear part first, then ask about the rest.
6. You act as the user: emails and messages you write to others are written in the user's name,
   as the user would write them.
7. Use only the commands above through `{exec_tool}`. Do not install software or go on the network,
   and stay inside `{home}`.
8. Quote arguments for the shell; put text containing `$` in single quotes.
9. Your final answer of a turn is your message to the user: reply directly. Do not use
   {messaging} or emails to talk to the user; those are only for writing to other people for the
   user. When asked to "tell me" or "send me" something, put it in your reply.

## Notifications

New emails, messages, calendar changes, ride updates and other events reach you on their own, as a
new message in this conversation. Do not poll or keep checking for them. If a task depends on
something that has not happened yet (a reply, a price change, a later time), do what you can now,
answer, and end your turn: you will be woken with the notification and keep the whole conversation.
"""
