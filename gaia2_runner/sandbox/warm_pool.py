"""A single-use warm pool: scenario containers started ahead of need, each given exactly one scenario.

Why: most of a small scenario's time was its container getting ready (Python, ARE's imports); a
spare does that while the run before it goes (docs/measurements.md, "Warm starts").

What keeps it as safe as a fresh container per scenario:
- a spare is the cold path's container (same image, limits, network, mounts, CA files, owner
  labels) minus its scenario's own parts (the file, and contract.ASSIGNED_ENV: its time limit and
  deadline), plus contract.ENV_WARM; a run takes only a spare made from its own spec;
- it is never reused: taken by one run, given its scenario by a token-protected POST /assign that
  the daemon accepts once, and removed after that run as any container is; the agent starts after
  the assignment, in that container alone;
- the runner asks each spare's /health with its token (sandbox/keepalive.py), so a killed runner's
  spares end themselves at their idle timeout as any container does; close() (the end of a job,
  Ctrl-C) and the next invocation's orphan sweep remove them.

Size: one spare per slot of the host (`size`), never more than the runs still queued (`pending`).
A spare that cannot be given its scenario is removed and the run starts cold, and its spec gets no
more spares (an image whose daemon has no /assign costs one spare, not one per run).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

import httpx

from gaia2_contract import constants as contract
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.adapter import AdapterClient, AdapterError
from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.engine import ContainerSpec, EngineUnavailable, Upload
from gaia2_runner.sandbox.keepalive import KEEPALIVE_S, keepalive_s, ping
from gaia2_runner.sandbox.ownership import container_labels

ASSIGN_WAIT_S = 30.0  # a spare's adapter may still be starting when it is taken
ASSIGN_POLL_S = 0.05
WARM_SCENARIO_LABEL = "(warm spare)"  # a spare's scenario label: it has no scenario yet


@dataclass
class Spare:
    key: str  # spec_key of what it was made from
    handle: ContainerHandle


def spare_spec(spec: ContainerSpec, scenario_dir: str) -> ContainerSpec:
    """The cold path's spec as a spare's: no scenario variables, warm, labelled as a spare, and
    `scenario_dir` writable after start (the scenario arrives then)."""
    env = {k: v for k, v in spec.env.items() if k not in contract.ASSIGNED_ENV}
    env[contract.ENV_WARM] = "1"
    return replace(
        spec,
        name=f"gaia2-warm-{secrets.token_hex(4)}",
        env=env,
        labels=container_labels(WARM_SCENARIO_LABEL, None),
        late_upload_dirs=(scenario_dir,),
    )


def spec_key(spec: ContainerSpec, uploads: list[Upload]) -> str:
    """What must be equal for a spare to serve a run: everything but the names, labels, port and
    the scenario's own variables; the files copied in before start by content."""
    env = sorted((k, v) for k, v in spec.env.items() if k not in (*contract.ASSIGNED_ENV, contract.ENV_WARM))
    files = sorted((d, f, hash(data), mode) for d, f, data, mode in uploads)
    plain = replace(spec, name="", labels={}, env={}, host_port=None, late_upload_dirs=())
    return repr((plain, env, files))


class Starter(Protocol):
    """What starts the spares: the pool's Sandbox (sandbox/sandbox.py)."""

    def start_container(self, spec: ContainerSpec, uploads: list[Upload]) -> ContainerHandle: ...


class WarmPool:
    """The spares of one sandbox (one engine host)."""

    def __init__(
        self,
        sandbox: Starter,
        size: int,
        pending: Callable[[], int],
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.sandbox, self.size, self.pending = sandbox, max(0, size), pending
        self._warn = warn or (lambda _message: None)
        self._warned = False  # the job hears of the pool's first trouble only: runs go on cold
        self._spares: list[Spare] = []
        # What the last run asked for: its key, spec, files but the scenario, the scenario's directory.
        self._latest: tuple[str, ContainerSpec, list[Upload], str] | None = None
        self._cold: set[str] = set()  # specs whose spare refused its scenario: no more spares
        self._growing = False
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._keeper: threading.Thread | None = None
        self._every = KEEPALIVE_S  # the latest spec's keepalive_s

    def take(
        self, spec: ContainerSpec, uploads: list[Upload], scenario: Upload, assigned: Mapping[str, str]
    ) -> ContainerHandle | None:
        """A spare made from `spec`, given `scenario` (copied in) and `assigned` (POST /assign);
        None when there is none (the caller starts one cold). Either way the pool refills."""
        key = spec_key(spec, uploads)
        with self._lock:
            spare = next((s for s in self._spares if s.key == key), None)
            if spare is not None:
                self._spares.remove(spare)
            stale = [s for s in self._spares if s.key != key] if spare is None else []
            for s in stale:
                self._spares.remove(s)
        for s in stale:  # another spec's spares: this job's runs have moved on
            s.handle.cleanup(timeout=0)
        self.refill(key, spec, uploads, scenario[0])
        if spare is None:
            return None
        try:
            _give(spare.handle, scenario, assigned)
        except EngineUnavailable:
            # The engine's API is away, not the spare at fault: the run waits for the API
            # (dataset_run: engine_wait) and starts again; the spec stays warm.
            spare.handle.cleanup(timeout=0)
            raise
        except (Gaia2Error, AdapterError, httpx.HTTPError, OSError) as exc:
            self._warn_once(f"warm spare {spare.handle.name} refused its scenario ({exc}): cold starts")
            with self._lock:
                self._cold.add(key)
                others = [s for s in self._spares if s.key == key]
                for s in others:
                    self._spares.remove(s)
            for s in [spare, *others]:
                s.handle.cleanup(timeout=0)
            return None
        spare.handle.warm = True
        return spare.handle

    def refill(self, key: str, spec: ContainerSpec, uploads: list[Upload], scenario_dir: str) -> None:
        """Start spares of `spec` (its spec_key: `key`) in the background, one at a time, up to
        min(size, pending)."""
        with self._lock:
            if key in self._cold:
                return
            self._latest = (key, spec, uploads, scenario_dir)
            if self._closed.is_set() or self._growing:
                return
            self._growing = True
        threading.Thread(target=self._grow, name="gaia2-warm-pool", daemon=True).start()

    def _wanted(self) -> int:
        return min(self.size, max(0, self.pending()))

    def _grow(self) -> None:
        """The one grower: while spares are wanted, start one of the latest spec (decided under
        the lock that take() holds, so a run taken meanwhile is seen or starts a new grower)."""
        while True:
            with self._lock:
                latest = self._latest
                if (
                    self._closed.is_set()
                    or latest is None
                    or latest[0] in self._cold
                    or len(self._spares) >= self._wanted()
                ):
                    self._growing = False
                    return
                key, spec, uploads, scenario_dir = latest
                self._every = keepalive_s(spec.env)
            try:
                handle = self.sandbox.start_container(spare_spec(spec, scenario_dir), uploads)
            except Exception as exc:  # noqa: BLE001 - no spare: the runs start cold
                self._warn_once(f"could not start a warm spare ({exc}): runs start cold meanwhile")
                with self._lock:
                    self._growing = False
                return
            with self._lock:
                closed = self._closed.is_set() or key in self._cold
                if not closed:
                    self._spares.append(Spare(key, handle))
            if closed:
                handle.cleanup(timeout=0)
            else:
                self._keep_alive()

    def _warn_once(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            self._warn(f"warm pool: {message}")

    def _keep_alive(self) -> None:
        with self._lock:
            if self._keeper is None:
                self._keeper = threading.Thread(
                    target=self._ping_spares, name="gaia2-warm-keeper", daemon=True
                )
                self._keeper.start()

    def _ping_spares(self) -> None:
        """Every keepalive_s: each spare's /health with its token (the daemon's watchdog counts
        only such requests); a spare that stopped is removed."""
        while not self._closed.wait(self._every):
            with self._lock:
                spares = list(self._spares)
            for spare in spares:
                try:
                    alive = ping(spare.handle)
                except Exception:  # noqa: BLE001 - the engine is away: asked again next time
                    continue
                if not alive:
                    with self._lock:
                        if spare not in self._spares:
                            continue  # taken meanwhile
                        self._spares.remove(spare)
                    spare.handle.cleanup(timeout=0)

    def spare_ids(self) -> set[str]:
        with self._lock:
            return {s.handle.id for s in self._spares}

    def close(self) -> None:
        """Remove every spare; spares still starting are removed as they come up."""
        self._closed.set()
        with self._lock:
            spares, self._spares = self._spares, []
        for spare in spares:
            spare.handle.cleanup(timeout=0)


def _give(handle: ContainerHandle, scenario: Upload, assigned: Mapping[str, str]) -> None:
    """Copy the scenario in, then POST /assign; waits for a spare whose adapter is still starting."""
    directory, filename, data, mode = scenario
    handle.put_file(directory, filename, data, mode=mode)
    deadline = time.monotonic() + ASSIGN_WAIT_S
    with AdapterClient(handle.base_url, handle.adapter_token, request_timeout=2.0) as client:
        while True:
            try:
                client.assign(assigned)
                return
            except httpx.TransportError:
                if time.monotonic() >= deadline or not handle.is_running():
                    raise
                time.sleep(ASSIGN_POLL_S)
