"""The podman API service itself: is one answering, and starting a private one when none does.

A private service is what the runner falls back to when no CONTAINER_HOST is given and nothing
answers on the system socket; it dies with the runner (even after kill -9, on Linux).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from podman import PodmanClient
from podman.errors import APIError

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.processes import stop_process

INSTALL_HINT = (
    "podman not found: install it (Debian/Ubuntu: apt-get install podman) "
    "or set CONTAINER_HOST to a podman API socket"
)


def ping(url: str, timeout: float = 3.0) -> bool:
    """True when a podman API answers at `url` (a short-lived client, so a dead socket fails fast)."""
    client = PodmanClient(base_url=url, timeout=timeout)
    try:
        return bool(client.ping())
    except (APIError, OSError):
        return False
    finally:
        client.close()


@dataclass
class PrivateService:
    """A `podman system service` the runner started because no API socket answered."""

    process: subprocess.Popen
    url: str
    directory: Path

    def stop(self) -> None:
        stop_process(self.process)
        shutil.rmtree(self.directory, ignore_errors=True)


# Exec'd in front of the private service on Linux: it gets SIGTERM when the runner dies, even by
# kill -9 (PR_SET_PDEATHSIG survives exec), so no service outlives its runner. The signal follows
# the creating *thread*, hence only when the main thread starts it.
_DIE_WITH_PARENT = (
    "import ctypes, os, sys\n"
    "try: ctypes.CDLL(None).prctl(1, 15, 0, 0, 0)\n"
    "except (AttributeError, OSError): pass\n"
    "if os.getppid() != int(sys.argv[1]): sys.exit(1)\n"
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def start_private_service(podman_bin: str | None = None, wait: float = 15.0) -> PrivateService:
    """Start `podman system service` on a socket of our own and wait until it answers a ping.

    The service is stopped at interpreter exit even if the caller forgets, and (Linux, main
    thread) when this process dies without an exit.
    """
    binary = podman_bin or shutil.which("podman")
    if not binary:
        raise Gaia2Error(INSTALL_HINT)
    directory = Path(tempfile.mkdtemp(prefix=f"gaia2-runner-{os.getpid()}-"))
    url = f"unix://{directory}/podman.sock"
    log = open(directory / "service.log", "wb")  # noqa: SIM115 - the child keeps it
    # With CONTAINER_HOST set the podman CLI turns into a remote client, which cannot serve.
    env = {k: v for k, v in os.environ.items() if k not in ("CONTAINER_HOST", "CONTAINER_CONNECTION")}
    command = [binary, "system", "service", "--time=0", url]
    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        command = [sys.executable, "-c", _DIE_WITH_PARENT, str(os.getpid()), *command]
    process = subprocess.Popen(
        command,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        start_new_session=True,  # Ctrl-C on the terminal must not kill it before we clean up
        cwd=directory,  # conmon inherits it: a working directory deleted later fails every container start
    )
    log.close()
    service = PrivateService(process=process, url=url, directory=directory)
    atexit.register(service.stop)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = (directory / "service.log").read_text(errors="replace").strip().splitlines()[-1:]
            service.stop()
            raise Gaia2Error(f"`podman system service` exited at once: {' '.join(tail) or 'no output'}")
        if ping(url, timeout=1.0):
            return service
        time.sleep(0.1)
    service.stop()
    raise Gaia2Error(f"`podman system service` did not answer on {url} within {wait:g}s")
