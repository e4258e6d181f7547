"""One scenario container the runner started: files in, state, logs and output out, cleanup.

Reads from the container are capped and streamed (sandbox/streams.py): what an agent makes the
daemon write never sits whole in the runner's memory.
"""

from __future__ import annotations

import contextlib
import io
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.container_logs import demux_logs
from gaia2_runner.sandbox.engine import EngineDriver
from gaia2_runner.sandbox.ssh_tunnel import SshHost
from gaia2_runner.sandbox.streams import (
    CONTAINER_LOG_MAX_BYTES,
    SMALL_ARCHIVE_MAX_BYTES,
    read_capped,
    truncation_marker,
)

STOPPED_GRACE_S = 10.0  # ContainerHandle.wait_exited: podman's cleanup after the process ends
EXITED_STATES = ("exited", "dead")  # "dead": Docker's, for a container its removal or cleanup failed on


class HandleOwner(Protocol):
    """What a handle needs of the Sandbox that started it (sandbox/sandbox.py), named here so this
    module does not import the Sandbox that imports it."""

    driver: EngineDriver
    tunnel: SshHost | None

    def forget(self, cid: str) -> None: ...


@dataclass
class ContainerHandle:
    """One running scenario container."""

    cid: str
    name: str
    host_port: int
    sandbox: HandleOwner
    adapter_token: str = field(default="", repr=False)  # a secret: never logged nor saved
    removed: bool = field(default=False)
    remote_port: int | None = None  # ssh:// hosts: the port on the remote loopback host_port forwards to
    warm: bool = False  # a warm spare given its scenario after start (sandbox/warm_pool.py)

    @property
    def id(self) -> str:
        return self.cid

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.host_port}"

    def put_file(self, directory: str, filename: str, data: bytes, mode: int = 0o600) -> None:
        """Copy one root-owned file into the (not necessarily started) container.

        The archive stops at tar's end-of-archive blocks, without the zeros tarfile pads it with up
        to its 10 KiB record size: podman 4's copier stops reading at the end marker, and padding
        still being written then fails the upload ("broken pipe"; seen with ~3 MB scenarios)."""
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            info = tarfile.TarInfo(filename)
            info.size, info.mode, info.mtime = len(data), mode, int(time.time())
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            tar.addfile(info, io.BytesIO(data))
        if not self.sandbox.driver.put_archive(self.cid, directory, buf.getvalue()[: tar.offset]):
            raise Gaia2Error(
                f"cannot copy {filename} into {directory} of the container: "
                "does the image follow docs/reference/container-contract.md?"
            )

    def state(self) -> dict[str, Any] | None:
        """The engine's State block ({} when the container is gone; None when the engine does not
        answer or errs: nobody knows, and a container is not taken for dead because its API is down)."""
        return self.sandbox.driver.state(self.cid)

    def is_running(self) -> bool:
        state = self.state()
        if state is None:
            return True  # unknown: the adapter API, which answers on its own, decides
        return bool(state.get("Running")) or state.get("Status") in (
            "running",
            "created",
            "configured",
            "initialized",
        )

    def wait_exited(self, timeout: float) -> bool:
        """Wait until the engine is done with the container ("exited", "dead", or gone); False at `timeout`.
        "stopped" (the process ended, podman still cleaning up) is not done: a copy out of the
        container then can find its output directory empty. It counts after STOPPED_GRACE_S."""
        deadline, stopped_at = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            state = self.state()
            if state is not None and (not state or state.get("Status") in EXITED_STATES):
                return True
            if state and state.get("Status") == "stopped":
                stopped_at = stopped_at or time.monotonic()
                if time.monotonic() - stopped_at >= STOPPED_GRACE_S:
                    return True
            time.sleep(0.2)
        return False

    def exit_code(self) -> int | None:
        state = self.state()
        if not state or state.get("Running"):
            return None
        code = state.get("ExitCode")
        return code if isinstance(code, int) else None

    def logs(self) -> str:
        """Container stdout+stderr as text (its first CONTAINER_LOG_MAX_BYTES, then a marker line);
        demultiplexed when the engine frames it. Streamed: the runner never holds more than the cap."""
        with self.sandbox.driver.open_logs(self.cid) as chunks:
            data = read_capped(chunks, CONTAINER_LOG_MAX_BYTES)
        text = demux_logs(data.data).decode("utf-8", errors="replace")
        return text + (
            f"\n{truncation_marker('container log', CONTAINER_LOG_MAX_BYTES)}\n" if data.truncated else ""
        )

    def get_archive(self, path: str) -> bytes:
        """The tar of `path` inside the container, read in one call (small files only: the
        preflight's result, an image check's output; a run's output goes through open_archive)."""
        with self.open_archive(path) as chunks:
            return read_capped(chunks, SMALL_ARCHIVE_MAX_BYTES).data

    @contextlib.contextmanager
    def open_archive(self, path: str) -> Iterator[Iterator[bytes]]:
        """The tar of `path` as a stream of chunks, never joined in memory."""
        with self.sandbox.driver.open_archive(self.cid, path) as chunks:
            yield chunks

    def stop(self, timeout: int = 5) -> None:
        self.sandbox.driver.stop(self.cid, timeout)

    def remove(self) -> None:
        try:
            if not self.sandbox.driver.remove(self.cid):  # and its volumes
                return  # no answer: still ours, close() and the next invocation's sweep try again
        except Gaia2Error:
            pass  # refused: as before, forgotten here (the sweep and `clean` see it)
        self.removed = True
        self.sandbox.forget(self.cid)

    def cleanup(self, timeout: int = 5) -> None:
        """Stop then remove; never raises for a container that is already gone."""
        if not self.removed:
            self.stop(timeout)
            self.remove()
        tunnel = self.sandbox.tunnel
        if tunnel is not None and self.remote_port is not None:
            tunnel.cancel(self.host_port, self.remote_port)
            self.remote_port = None
