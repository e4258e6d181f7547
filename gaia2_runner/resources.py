"""Where the checkout's non-package directories are (containers/, examples/): next to the package
in a source checkout, else under the current directory."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_PARENT = Path(__file__).resolve().parent.parent


def checkout_candidates(relative: str, env_var: str | None = None) -> list[Path]:
    """Places to look for `relative`, in order: $env_var, beside the package, the current directory."""
    env = os.environ.get(env_var) if env_var else None
    return ([Path(env)] if env else []) + [PACKAGE_PARENT / relative, Path.cwd() / relative]
