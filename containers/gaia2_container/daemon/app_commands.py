"""One shell command per app on the agent's PATH, for CLI agents (`calendarapp --help`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable

from .toolbox import ToolSpec

APP_CLI_MODULE = "gaia2_container.runtimes.app_cli"
# Where gaia2_container is importable from. The launcher sets PYTHONPATH itself: harnesses scrub
# their shell tool's environment (OpenClaw's exec drops PYTHONPATH and every LD_* variable).
SOURCE_ROOT = Path(__file__).resolve().parents[2]


def command_name(app: str) -> str:
    """`CalendarApp` -> `calendarapp`: lower case, and nothing a shell would interpret."""
    return "".join(ch for ch in app.lower() if ch.isalnum() or ch in "-_")


def install_app_commands(specs: Iterable[ToolSpec], bin_dir: Path) -> list[Path]:
    """Write tiny launchers; the CLI itself asks the daemon for the tool list at run time."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for app in sorted({s.app for s in specs}):
        path = bin_dir / command_name(app)
        path.write_text(f'#!/bin/sh\nPYTHONPATH={SOURCE_ROOT} exec {sys.executable} -m {APP_CLI_MODULE} {app} "$@"\n',
                        encoding="utf-8")
        path.chmod(0o755)
        written.append(path)
    return written
