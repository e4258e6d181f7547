"""One scenario's agent cannot use up another's processes through their shared uid (podman).

Every container's agent is uid 1000, and the kernel counts RLIMIT_NPROC per uid across the whole
host. With the 1024 that scripts/setup-podman.sh's containers.conf sets, two agents each holding
900 processes (within their own pids limit of 1024) left a third unable to start a thread (seen in
the parallel suite: a hostile agent's fork bomb on one worker, `can't start new thread` on another).
The runner now states nproc per container (sandbox/container_limits.py); Docker sets none."""

from __future__ import annotations

import time

import pytest

from container_probe import output_of, run_python, start_python
from gaia2_runner.config.engines import PODMAN
from gaia2_runner.config.limits import ContainerLimits
from gaia2_runner.sandbox.container_limits import limit_options, nproc_limit
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

HELD = 600  # below a container's pids limit (1024); two of them pass the old uid-wide 1024
AGENT_UID = 1000

# As the agent's uid: fork `count` children that sleep, say how many it got, keep them.
FORK = """
import os, sys, time
os.setgid(AGENT_UID); os.setuid(AGENT_UID)
count, keep = int(sys.argv[1]), sys.argv[2] == "keep"
got = 0
for _ in range(count):
    try:
        pid = os.fork()
    except OSError as exc:
        print("REFUSED", exc, flush=True)
        break
    if pid == 0:
        os.execv("/bin/sleep", ["sleep", "600"])
    got += 1
limits = [line for line in open("/proc/self/limits") if line.startswith("Max processes")]
print("GOT", got, limits[0].split()[2], flush=True)
if keep:
    time.sleep(600)
""".replace("AGENT_UID", str(AGENT_UID))


def test_agents_of_other_containers_cannot_use_up_an_agents_processes(sandboxes, built_images):
    built_images(PODMAN)
    sandbox = sandboxes(PODMAN)
    options = limit_options(ContainerLimits.of(pids=1024))
    holders = [start_python(sandbox, ORACLE_IMAGE, FORK, str(HELD), "keep", **options) for _ in range(2)]
    try:
        deadline = time.monotonic() + 120
        while not all("GOT" in output_of(c) for c in holders) and time.monotonic() < deadline:
            time.sleep(0.5)
        logs = [output_of(c) for c in holders]
        assert all(f"GOT {HELD} {nproc_limit()}" in log for log in logs), logs
        code, out = run_python(sandbox, ORACLE_IMAGE, FORK, "50", "exit", **options)
        assert code == 0 and f"GOT 50 {nproc_limit()}" in out, out
    finally:
        for container in holders:
            container.remove(force=True, v=True)
