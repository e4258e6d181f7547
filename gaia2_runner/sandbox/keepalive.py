"""The runner's word to a container's watchdog, from a thread of its own.

The daemon ends a run whose runner has said nothing for its idle timeout (contract.ENV_IDLE_TIMEOUT:
that is how a killed runner's containers end themselves). A live runner's polling alone is not
enough to say it: the polling loop also asks the engine whether the container still runs, and a
busy engine (an image build holding its storage lock, a loaded machine) can take longer than the
idle timeout to answer, which ended live runs as "runner gone". So each run, and each warm spare,
is pinged with its token on a clock that no engine call can hold up; the thread dies with the
runner process, so a killed runner's containers still end themselves.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from types import TracebackType

import httpx

from gaia2_contract import constants as contract
from gaia2_runner.sandbox.adapter import AdapterClient
from gaia2_runner.sandbox.container_handle import ContainerHandle

KEEPALIVE_S = 10.0  # at most; a third of the idle timeout when that is shorter
PING_TIMEOUT_S = 2.0


def keepalive_s(env: Mapping[str, str]) -> float:
    """How often to ping a container started with `env`: a third of its idle timeout
    (ENV_IDLE_TIMEOUT, set by execution/container_env.py), at most KEEPALIVE_S."""
    try:
        idle = float(env.get(contract.ENV_IDLE_TIMEOUT) or contract.DEFAULT_IDLE_TIMEOUT_S)
    except ValueError:
        idle = contract.DEFAULT_IDLE_TIMEOUT_S
    return min(KEEPALIVE_S, idle / 3) if idle > 0 else KEEPALIVE_S


def ping(handle: ContainerHandle) -> bool:
    """GET /health with the container's token (the watchdog counts it); False when nothing
    answered and the engine says the container no longer runs."""
    try:
        _hello(handle)
        return True
    except httpx.HTTPError:
        return handle.is_running()


def _hello(handle: ContainerHandle) -> None:
    with AdapterClient(handle.base_url, handle.adapter_token, request_timeout=PING_TIMEOUT_S) as client:
        client.ping()


class KeepAlive:
    """`with KeepAlive(handle, every):` pings `handle` every `every` seconds while the block runs."""

    def __init__(self, handle: ContainerHandle, every: float) -> None:
        self.handle, self.every = handle, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gaia2-keepalive", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                _hello(self.handle)
            except httpx.HTTPError:
                pass  # not up yet, or gone: the run's own polling finds out which

    def __enter__(self) -> KeepAlive:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
