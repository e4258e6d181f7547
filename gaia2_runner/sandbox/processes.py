"""Stopping a helper process the runner started (the private podman service, the ssh master)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable


def stop_process(
    process: subprocess.Popen, ask: Callable[[], object] | None = None, grace_s: float = 5.0
) -> None:
    """Ask it to end (`ask`, or SIGTERM), wait `grace_s`, then kill: a helper that hangs on exit
    must not hang the runner's own exit."""
    if process.poll() is not None:
        return
    (ask or process.terminate)()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=grace_s)
