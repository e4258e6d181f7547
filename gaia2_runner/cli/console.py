"""The two consoles every command prints on: results on stdout, progress and errors on stderr."""

from __future__ import annotations

from rich.console import Console

out = Console()
err = Console(stderr=True)
