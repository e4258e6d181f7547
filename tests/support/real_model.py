"""A real OpenAI-compatible model server for the real-model tests and benchmarks.

llama.cpp's `llama-server` serving a small instruct GGUF, both set up once per machine by
scripts/setup-model-server.sh (which owns every version, name, size and server flag: the flags come
from its output, GAIA2_LLAMA_FLAGS, so the tests serve exactly as `setup-model-server.sh --serve`
does, bound to 0.0.0.0 so scenario containers reach it through the host gateway), started here on a
free port, waited for on `/health`, logged to a file and always stopped at the end. Tests get it
from the session fixture `real_model_server` (tests/conftest.py); benchmarks use `running_server`
directly.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from gaia2_runner.sandbox.ports import free_port
from gaia2_runner.sandbox.processes import stop_process
from harness_support import HOST

REPO = Path(__file__).resolve().parents[2]
SETUP_SCRIPT = REPO / "scripts" / "setup-model-server.sh"
SETUP_TIMEOUT_S = 2400  # a first build on a fresh, busy 2-core machine plus the model's download
HEALTH_TIMEOUT_S = 180  # loading the GGUF; a busy machine is slow
START_ATTEMPTS = 3  # the free port may be taken between picking it and the server binding it
LOG_TAIL_CHARS = 2000


class RealModelError(RuntimeError):
    """The model server could not be set up or started; the message says why."""


@dataclass(frozen=True)
class ModelFiles:
    """What the setup script produced: the server binary, the GGUF, the model name to request and
    the server's flags (all but the model, its alias and the port)."""

    server: Path
    gguf: Path
    alias: str
    flags: tuple[str, ...]


def setup_files(timeout: float = SETUP_TIMEOUT_S) -> ModelFiles:
    """Run the (idempotent) setup script and read the shell-quoted KEY=VALUE lines it prints."""
    try:
        proc = subprocess.run(["bash", str(SETUP_SCRIPT)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise RealModelError(f"{SETUP_SCRIPT.name} took over {timeout:.0f} s") from exc
    if proc.returncode != 0:
        raise RealModelError(f"{SETUP_SCRIPT.name} failed: {proc.stderr[-LOG_TAIL_CHARS:].strip()}")
    found = dict(shlex.split(line)[0].split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    try:
        return ModelFiles(
            Path(found["GAIA2_LLAMA_SERVER"]),
            Path(found["GAIA2_MODEL_GGUF"]),
            found["GAIA2_MODEL_ALIAS"],
            tuple(found["GAIA2_LLAMA_FLAGS"].split()),
        )
    except KeyError as exc:
        raise RealModelError(f"{SETUP_SCRIPT.name} printed no {exc.args[0]}: {proc.stdout!r}") from exc


@dataclass
class RealModelServer:
    """One running llama-server; `container_url` is its base URL as scenario containers see it."""

    files: ModelFiles
    port: int
    log_path: Path
    process: subprocess.Popen | None = None

    @property
    def model(self) -> str:
        return self.files.alias

    @property
    def host_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def container_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def command(self) -> list[str]:
        """The same command line as `setup-model-server.sh --serve` runs, on this port."""
        return [
            str(self.files.server),
            "-m",
            str(self.files.gguf),
            "--alias",
            self.files.alias,
            "--port",
            str(self.port),
            *self.files.flags,
        ]

    def start(self, health_timeout: float = HEALTH_TIMEOUT_S) -> None:
        """Start it and return once `/health` answers 200; stop it and raise otherwise."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + health_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RealModelError(f"llama-server exited with {self.process.returncode}: {self.log_tail()}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass  # not listening yet, or still loading the model
            time.sleep(0.5)
        self.stop()
        raise RealModelError(
            f"llama-server gave no healthy /health in {health_timeout:.0f} s: {self.log_tail()}"
        )

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-LOG_TAIL_CHARS:].strip()
        except OSError:
            return "(no log)"


@contextmanager
def running_server(log_dir: Path, files: ModelFiles | None = None) -> Iterator[RealModelServer]:
    """Set up (when needed) and start a server with its log in `log_dir`; always stopped on exit."""
    files = files or setup_files()
    log_dir.mkdir(parents=True, exist_ok=True)
    error: RealModelError | None = None
    for attempt in range(1, START_ATTEMPTS + 1):
        server = RealModelServer(files, free_port(), log_dir / f"llama-server-{attempt}.log")
        try:
            server.start()
            break
        except RealModelError as exc:
            error = exc
    else:
        raise error or RealModelError("llama-server did not start")
    try:
        yield server
    finally:
        server.stop()
