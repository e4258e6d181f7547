"""The gaia2-cli commands on the agent's PATH (`calendar add-event --title ...`), for CLI agents.

One launcher per app instance of the scenario that is a command (runtimes/gaia2_cli/surface.py
names them as Meta's gaia2-cli does); the CLI asks the daemon for the tool list at run time.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import gaia2_container

from ...runtimes.gaia2_cli.surface import command_names
from .toolbox import ToolSpec

GAIA2_CLI_MODULE = "gaia2_container.runtimes.gaia2_cli"
# Where gaia2_container is importable from. The launcher sets PYTHONPATH itself: harnesses scrub
# their shell tool's environment (OpenClaw's exec drops PYTHONPATH and every LD_* variable).
# Named from the package itself, not by counting parents of this file: a move would break the count.
SOURCE_ROOT = Path(gaia2_container.__file__).resolve().parents[1]


def install_app_commands(specs: Iterable[ToolSpec], bin_dir: Path) -> list[Path]:
    """Write tiny launchers, one per command; names are [a-z0-9-] only (nothing a shell interprets)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in command_names(s.to_dict() for s in specs):
        path = bin_dir / name
        path.write_text(
            f'#!/bin/sh\nPYTHONPATH={SOURCE_ROOT} exec {sys.executable} -m {GAIA2_CLI_MODULE} {name} "$@"\n',
            encoding="utf-8",
        )
        path.chmod(0o755)
        written.append(path)
    return written
