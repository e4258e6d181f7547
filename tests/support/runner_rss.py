"""Run the gaia2-runner CLI as a child process and read its own peak RSS (tests and benchmarks).

The child reports its own VmHWM (/proc/self/status) at exit (atexit), so the number is the
runner's peak, never another process's: RUSAGE_CHILDREN would be the largest of every child waited
for, and even RUSAGE_SELF's ru_maxrss survives exec on Linux, so a child of a big pytest process
reported pytest's size (2.3 GB in CI, after a thousand tests) instead of its own.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_WRAPPER = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def peak_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return line.split()[1]
atexit.register(lambda: open(out, "w").write(peak_kib()))
sys.argv[0] = "gaia2-runner"
runpy.run_module("gaia2_runner", run_name="__main__", alter_sys=True)
"""
# An agent (GAIA2_AGENT_COMMAND) printing `mb` MiB to stdout in 1 MiB blocks, then exiting.
PRINTER = "import os\nblock = b'x' * 1048575 + b'\\n'\nfor _ in range({mb}):\n    os.write(1, block)\n"


def python_command(script: str) -> str:
    """GAIA2_AGENT_COMMAND running `script` with the image's python (no quoting trouble)."""
    encoded = base64.b64encode(script.encode()).decode()
    return f"python3 -c \"import base64; exec(base64.b64decode('{encoded}'))\""


def run_cli(
    args: list[str], rss_file: Path, timeout_s: float = 600
) -> tuple[subprocess.CompletedProcess, int]:
    """(the finished process, its peak RSS in bytes)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", _WRAPPER, str(rss_file), *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env=env,
        cwd=REPO,
    )
    return proc, int(rss_file.read_text()) * 1024
