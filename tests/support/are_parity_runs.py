"""scripts/are_parity.py run from the tests, and its run on the CI model, which two test modules read.

The parity run on the CI model is the suite's longest single step: ARE's `are-benchmark` and the
runner's `--agent are-default` on the same scenarios and the same real model server. Its runner side
is also the run tests/e2e/test_real_model_are_default.py checks (ARE's default agent on the real
model, judged, traced), so the conftest's `ci_model_parity` runs it once for both.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from are_parity import RUNNER_EXIT
from harness_support import SCENARIOS, CliRun, read_cli_run
from real_model import RealModelServer

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "are_parity.py"
CI_MODEL_SCENARIOS = ("demo_contacts_update_phone", "demo_calendar_add_event")
# The CI model on 2 shared cores: ARE's cold first call took 88 s and later ones 15-115 s (a 0.5B
# model calling an unknown tool again and again: neither side ends by itself). The runner judges at
# its limit; ARE's own limit does not end its run (scripts/are_parity.py ARE_GRACE_S), so its
# container is stopped 60 s later, without a verdict. The runner's first call finds the prompt in
# the server's cache (ARE's side sent it just before). At 90 s + 30 s the parallel suite's load
# made the second scenario's cold prompt outlast ARE's side (the one-slot server still computing the
# first scenario's abandoned requests) and the runner's first call timed out: 120 s + 60 s.
CI_LIMITS = ("--timeout", "120", "--are-grace", "60")
CI_MODEL_TIMEOUT_S = 2900  # the whole script: both sides, both scenarios, a cold first call


def parity(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO / "containers")},
    )


def parity_on_ci_model(server: RealModelServer, out: Path) -> subprocess.CompletedProcess:
    """Both sides on CI_MODEL_SCENARIOS against the real model server (stdout: the report)."""
    return parity(
        "--model",
        server.model,
        "--base-url",
        server.host_url,
        "--scenarios",
        *(str(SCENARIOS / f"{name}.json") for name in CI_MODEL_SCENARIOS),
        "--output-dir",
        str(out),
        *CI_LIMITS,
        timeout=CI_MODEL_TIMEOUT_S,
    )


def runner_side(out: Path, scenario_id: str) -> CliRun:
    """The parity run's runner side on `scenario_id` as a CLI run: its output directory, and its
    process from its log (stdout and stderr together, then the exit code the script wrote)."""
    log = (out / "runner" / f"{scenario_id}.log").read_text(errors="replace")
    code = int(log.rsplit(RUNNER_EXIT, 1)[1].split()[0]) if RUNNER_EXIT in log else -1
    proc = subprocess.CompletedProcess(["gaia2-runner", "run-dataset"], code, stdout=log, stderr="")
    return read_cli_run(proc, out / "runner" / scenario_id)
