"""Shared helpers: scenario files and a tiny fake adapter server (no containers needed)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest


def scenario_doc(scenario_id: str | None = "demo_ok", duration: Any = 30) -> dict:
    definition: dict[str, Any] = {"duration": duration}
    if scenario_id is not None:
        definition["scenario_id"] = scenario_id
    return {"metadata": {"definition": definition}, "apps": [], "events": []}


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[..., Path]:
    def _write(name: str = "scenario.json", doc: Any = None, text: str | None = None) -> Path:
        path = tmp_path / name
        path.write_text(text if text is not None else json.dumps(doc if doc is not None else scenario_doc()))
        return path

    return _write


class FakeAdapter:
    """Serves /health and /status from Python callables, on 127.0.0.1:<random>."""

    def __init__(self, health: Callable[[], tuple[int, dict]], status: Callable[[], dict]) -> None:
        adapter = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path.startswith("/health"):
                    code, body = adapter.health()
                elif self.path.startswith("/status"):
                    code, body = 200, adapter.status()
                else:
                    code, body = 404, {}
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.health, self.status = health, status
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
