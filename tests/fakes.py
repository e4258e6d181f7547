"""A podman backend double that serves the adapter API from a thread, for container-free tests."""

from __future__ import annotations

import io
import json
import tarfile
from typing import Any, Callable

from conftest import FakeAdapter


def output_tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"output/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class FakeHandle:
    def __init__(self, backend: "FakeBackend") -> None:
        self.backend = backend
        self.id = "fake-container-id"
        self.base_url = backend.adapter.base_url
        self.cleaned = False

    def is_running(self) -> bool:
        return self.backend.running()

    def exit_code(self) -> int | None:
        return None if self.backend.running() else 3

    def logs(self) -> str:
        return "booting\nTraceback: it broke\n"

    def get_archive(self, path: str) -> bytes:
        assert path == "/gaia2/output"
        return output_tar({"daemon_status.json": json.dumps(self.backend.adapter.status()).encode()})

    def cleanup(self, timeout: int = 5) -> None:
        self.cleaned = True


class FakeBackend:
    def __init__(self, health: Callable[[], tuple[int, dict]], status: Callable[[], dict],
                 running: Callable[[], bool] = lambda: True, images: tuple[str, ...] = ("img",)) -> None:
        self.adapter = FakeAdapter(health, status)
        self.running = running
        self.images = images
        self.handles: list[FakeHandle] = []
        self.started: list[dict[str, Any]] = []

    def image_exists(self, ref: str) -> bool:
        return ref in self.images

    def run_scenario_container(self, image, scenario_bytes, env, scenario_id, **_kw) -> FakeHandle:
        self.started.append({"image": image, "env": dict(env), "scenario": scenario_bytes})
        handle = FakeHandle(self)
        self.handles.append(handle)
        return handle

    def close(self) -> None:
        self.adapter.close()
