"""The podman engine through its REST API (podman-py): sandbox/engine.py's EngineDriver for podman.

Every scenario container gets its own user-mode network stack (slirp4netns): no bridge shared with
other containers, the host's loopback (where adapter ports are published) out of reach, outbound
traffic (model providers, host.containers.internal) leaving as if from the host.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any, BinaryIO

from podman import PodmanClient
from podman.errors import APIError, NotFound

from gaia2_runner.config.engines import PODMAN
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.api_errors import api_message, unreachable
from gaia2_runner.sandbox.build_stream import bare_id, follow_build
from gaia2_runner.sandbox.container_limits import late_upload_places, limit_options, tmpfs_mounts
from gaia2_runner.sandbox.driver_common import published_host_port, streamed
from gaia2_runner.sandbox.engine import (
    BuildResult,
    ContainerRecord,
    ContainerSpec,
    EngineInfo,
    EngineUnavailable,
)
from gaia2_runner.sandbox.service import ping

NETWORK_MODE = "slirp4netns"
NETWORK_OPTIONS = {"slirp4netns": ["allow_host_loopback=false"]}


def create_options(spec: ContainerSpec) -> dict[str, Any]:
    """podman-py `containers.create` keyword arguments for `spec` (pure: unit-tested)."""
    host = ("127.0.0.1", spec.host_port) if spec.host_port is not None else {"ip": "127.0.0.1"}
    mounts = tmpfs_mounts(spec.tmpfs + late_upload_places(spec.late_upload_dirs)) + [
        {"type": "bind", "source": b.source, "target": b.target, "read_only": b.read_only} for b in spec.binds
    ]
    kwargs: dict[str, Any] = dict(
        detach=True,
        name=spec.name,
        ports={f"{spec.adapter_port}/tcp": host},
        network_mode=NETWORK_MODE,
        network_options=NETWORK_OPTIONS,
        environment=dict(spec.env),
        labels=dict(spec.labels),
        mounts=mounts,
        **limit_options(spec.limits),
    )
    if spec.command is not None:
        kwargs["command"] = list(spec.command)
    if spec.entrypoint is not None:
        kwargs["entrypoint"] = list(spec.entrypoint)
    return kwargs


class PodmanDriver:
    """podman's API at one URL (unix:// or tcp://; ssh:// hosts arrive as their tunnel's socket)."""

    name = PODMAN

    def __init__(self, url: str) -> None:
        self.url = url
        # No client-side timeout: archive reads and builds may legitimately take minutes.
        self.client = PodmanClient(base_url=url)

    def ping(self, timeout: float = 3.0) -> bool:
        return ping(self.url, timeout=timeout)

    def info(self) -> EngineInfo:
        try:
            version = self.client.version()
        except (APIError, OSError):
            return EngineInfo(PODMAN, "", "")
        return EngineInfo(PODMAN, str(version.get("Version", "")), str(version.get("ApiVersion", "")))

    def close(self) -> None:
        self.client.close()

    def _raise(self, exc: BaseException, doing: str) -> None:
        if unreachable(exc):
            raise EngineUnavailable(f"podman API unreachable at {self.url}: cannot {doing}") from None
        if isinstance(exc, APIError):
            raise Gaia2Error(f"cannot {doing}: {api_message(exc)}") from None
        raise exc

    def create(self, spec: ContainerSpec) -> str:
        try:
            return str(self.client.containers.create(spec.image, **create_options(spec)).id)
        except (APIError, OSError) as exc:
            self._raise(exc, f"create a container from {spec.image}")
            raise

    def put_archive(self, cid: str, directory: str, tar: bytes) -> bool:
        try:
            return bool(self.client.containers.get(cid).put_archive(directory, tar))
        except (APIError, OSError) as exc:
            self._raise(exc, f"copy into {directory} of the container")
            raise

    def start(self, cid: str) -> None:
        try:
            self.client.containers.get(cid).start()
        except (APIError, OSError) as exc:
            self._raise(exc, "start a container")

    def state(self, cid: str) -> dict[str, Any] | None:
        try:
            return self.client.containers.get(cid).attrs.get("State") or {}
        except NotFound:
            return {}
        except (APIError, OSError):
            return None

    def inspect(self, cid: str) -> dict[str, Any]:
        try:
            return dict(self.client.containers.get(cid).attrs)
        except NotFound:
            return {}

    def published_port(self, cid: str, port: int) -> int:
        return published_host_port("podman", self.inspect(cid), port)

    def open_logs(self, cid: str) -> contextlib.AbstractContextManager[Iterator[bytes]]:
        return streamed(
            self.client.api.get(
                f"/containers/{cid}/logs", params={"stdout": True, "stderr": True}, stream=True
            )
        )

    def open_archive(self, cid: str, path: str) -> contextlib.AbstractContextManager[Iterator[bytes]]:
        return streamed(self.client.api.get(f"/containers/{cid}/archive", params={"path": path}, stream=True))

    def stop(self, cid: str, timeout: int) -> None:
        with contextlib.suppress(APIError, OSError):
            self.client.containers.get(cid).stop(timeout=timeout, ignore=True)

    def remove(self, cid: str) -> bool:
        try:
            self.client.containers.remove(cid, force=True, v=True)  # and its output volume
        except NotFound:
            pass
        except (APIError, OSError) as exc:
            if unreachable(exc):
                return False
            raise Gaia2Error(f"cannot remove container {cid[:12]}: {api_message(exc)}") from None
        return True

    def list_labelled(self, label: str) -> list[ContainerRecord]:
        try:
            found = self.client.containers.list(all=True, filters={"label": label})
        except (APIError, OSError) as exc:
            self._raise(exc, "list containers")
            raise
        records = []
        for c in found:
            names = c.attrs.get("Names") or [c.id[:12]]
            records.append(
                ContainerRecord(
                    id=str(c.id),
                    name=str(names[0]).lstrip("/"),
                    state=str(c.attrs.get("State", "")),
                    labels=dict(c.attrs.get("Labels") or {}),
                    created=_created(c.attrs.get("Created")),
                )
            )
        return records

    def container_exists(self, cid: str) -> bool:
        try:
            return bool(self.client.containers.exists(cid))
        except (APIError, OSError) as exc:
            self._raise(exc, "look up a container")
            raise

    def image_id(self, ref: str) -> str | None:
        try:
            return bare_id(str(self.client.images.get(ref).id))
        except (NotFound, APIError):
            return None

    def image_labels(self, ref: str) -> dict[str, str] | None:
        try:
            return dict(self.client.images.get(ref).labels or {})
        except (NotFound, APIError):
            return None

    def build(
        self, body: BinaryIO, params: Mapping[str, Any], log: Callable[[str], None] | None
    ) -> BuildResult:
        try:
            resp = self.client.api.post(
                "/build",
                params=dict(params),
                data=body,
                headers={"Content-type": "application/x-tar"},
                stream=True,
            )
            resp.raise_for_status()
            return follow_build(resp.iter_lines(), log)
        except APIError as exc:
            return BuildResult(None, " ".join(str(getattr(exc, "explanation", None) or exc).split()))


def _created(value: object) -> float:
    """podman lists Created as an RFC 3339 string or epoch seconds, depending on the endpoint."""
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")[:26]).timestamp()
    except ValueError:
        return 0.0
