"""The instructions file (AGENTS.md) a CLI harness reads: the rules of gaia2-cli's template."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any


def render_instructions(tools: list[dict[str, Any]], sim_time: float | None) -> str:
    """The rules, the scenario's date and the app commands available in this scenario."""
    now = "unknown"
    if sim_time is not None:
        now = datetime.fromtimestamp(sim_time, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S (%A)")
    apps = sorted({t["app"] for t in tools if t.get("app") not in ("AgentUserInterface", "SystemApp")})
    return (
        "# Instructions\n\nYou are the user's personal assistant. Act for the user with the app commands "
        "on your PATH; run `<command> --help` to learn them.\n\n"
        "- Work silently: do not ask for confirmation, do the task.\n"
        "- Your final reply is the message the user receives.\n"
        "- New messages and app notifications arrive as new messages after your reply; do not poll.\n"
        f"- The current date and time is {now} (UTC).\n\n"
        "Apps: " + ", ".join(apps) + "\n"
    )
