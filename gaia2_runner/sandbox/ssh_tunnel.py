"""An `ssh://user@host[:port]/path/podman.sock` (or docker.sock) engine host: one ssh master connection per host.

The runner must reach two things on a remote host: its engine API socket and, per container, the
adapter port the engine publishes on the remote host's loopback. One `ssh -M -N` master forwards the
API socket to a local one (the sandbox then talks `unix://` to it, as to a local service) and
later adds and cancels one port forward per container over the same connection (`ssh -O
forward` / `-O cancel`), so a container costs no new ssh login. When the master dies or the
remote service stops, the local socket stops answering, which is what HostWatch notices.

Query parameters configure ssh: `identity=PATH` is `-i PATH`; any other `Name=value` is
`-o Name=value` (e.g. `?identity=~/.ssh/id_ed25519&StrictHostKeyChecking=accept-new`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.ports import free_port
from gaia2_runner.sandbox.processes import stop_process
from gaia2_runner.text import one_line

CONNECT_TIMEOUT_S = 20.0


class SshHost:
    """The master connection of one ssh:// host; `url` is the local unix:// socket to use."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if not parts.hostname or not parts.path:
            raise Gaia2Error(f"{url}: use ssh://user@host[:port]/path/to/podman.sock (or docker.sock)")
        self.source = url
        self.target = f"{parts.username}@{parts.hostname}" if parts.username else parts.hostname
        self.remote_socket = parts.path
        self.options: list[str] = ["-p", str(parts.port)] if parts.port else []
        for name, value in parse_qsl(parts.query):
            if name == "identity":
                self.options += ["-i", os.path.expanduser(value)]
            elif name != "secure":  # podman's own URLs carry ?secure=True
                self.options += ["-o", f"{name}={value}"]
        self.directory = Path(tempfile.mkdtemp(prefix="gaia2-ssh-"))
        self.control = self.directory / "control"
        self.local_socket = self.directory / "podman.sock"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.local_socket}"

    def _ssh(self, *args: str) -> list[str]:
        return ["ssh", "-S", str(self.control), *self.options, *args, self.target]

    def start(self) -> SshHost:
        if shutil.which("ssh") is None:
            raise Gaia2Error(f"{self.source}: ssh not found: install openssh-client")
        command = self._ssh(
            "-M",
            "-N",
            "-o",
            "BatchMode=yes",
            "-o",
            "ExitOnForwardFailure=yes",
            "-o",
            "ServerAliveInterval=5",
            "-o",
            "ServerAliveCountMax=2",
            "-L",
            f"{self.local_socket}:{self.remote_socket}",
        )
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while not self.local_socket.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                why = self._stderr() or "no connection"
                self.close()
                raise Gaia2Error(f"cannot reach {self.source} over ssh: {why}")
            time.sleep(0.1)
        return self

    def _stderr(self) -> str:
        if self.process is None or self.process.poll() is None or self.process.stderr is None:
            return ""
        return one_line(self.process.stderr.read().decode("utf-8", "replace"), 300)

    def forward(self, remote_port: int) -> int:
        """Forward a free local port to `remote_port` on the host's loopback; the local port."""
        local = free_port()
        spec = f"127.0.0.1:{local}:127.0.0.1:{remote_port}"
        proc = subprocess.run(
            self._ssh("-O", "forward", "-L", spec), capture_output=True, text=True, timeout=30
        )
        if proc.returncode != 0:
            raise Gaia2Error(
                f"cannot forward the adapter port over ssh to {self.source}: {one_line(proc.stderr, 300)}"
            )
        return local

    def cancel(self, local: int, remote_port: int) -> None:
        spec = f"127.0.0.1:{local}:127.0.0.1:{remote_port}"
        subprocess.run(self._ssh("-O", "cancel", "-L", spec), capture_output=True, timeout=30, check=False)

    def close(self) -> None:
        """End the master connection (its forwards with it) and remove the local socket."""
        if self.process is not None:
            stop_process(
                self.process,
                lambda: subprocess.run(self._ssh("-O", "exit"), capture_output=True, timeout=30, check=False),
            )
        shutil.rmtree(self.directory, ignore_errors=True)
