"""Several engine hosts (`[run] hosts`): one worker per slot, images there first, a watch on each.

A run needs a free slot on some host: every slot is a worker thread bound to its host, all
taking jobs from one queue, so runs spread over hosts by free slots. `HostWatch` pings each
host's API every HOST_CHECK_S; after HOST_FAILURES failed pings in a row (or when a worker finds
the API gone) the host is given up, provided another host is still in use: its sandbox is marked
`lost` (its waits end at once) and the engine interrupts the runs in flight there, records each
as an infrastructure error naming the host and queues it again for the other hosts. The last
host standing is never given up: then the single-host outage handling applies (wait up to
`engine_wait`). Without `hosts` the run uses one host: the engine's (sandbox/engine_select.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from gaia2_runner.config import HostSpec, RunConfig
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.sandbox import Sandbox

HOST_CHECK_S = 2.0
HOST_FAILURES = 3  # consecutive failed pings (about 6 s) before a host is given up


@dataclass
class Host:
    url: str
    slots: int
    sandbox: Sandbox
    own: bool = True  # connected by the engine (closed at the end)
    failures: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def lost(self) -> bool:
        return self.sandbox.lost.is_set()


def _connect(config: RunConfig, url: str | None = None) -> Sandbox:
    """A connection on the run's engine that sweeps leftovers (or not) as the run says: both
    settings come resolved from config/ ($GAIA2_ENGINE and $GAIA2_SWEEP applied there)."""
    sandbox = Sandbox.connect(url, engine=config.run.engine, where=config.where("engine"))
    return _swept_as_configured(sandbox, config)


def connect_first(config: RunConfig) -> Sandbox:
    """The first host of `[run] hosts` that answers (the one that plans and checks), else the
    usual single connection (CONTAINER_HOST, the default socket or a private service)."""
    if not config.run.hosts:
        return _connect(config)
    failures = []
    for spec in config.run.hosts:
        try:
            return _connect(config, spec.url)
        except Gaia2Error as exc:
            failures.append(exc.message)
    raise Gaia2Error(f"{config.where('hosts')}: no engine host answers: {'; '.join(failures)}")


def _swept_as_configured(sandbox: Sandbox, config: RunConfig) -> Sandbox:
    """Whether this run sweeps leftovers before its first container: `[run] sweep` as resolved."""
    sandbox.sweep = config.run.sweep
    return sandbox


def connect_hosts(config: RunConfig, first: Sandbox, warn: Callable[[str], None]) -> list[Host]:
    """Every host of the config that answers now (a silent one is left out with a warning)."""
    _swept_as_configured(first, config)
    if not config.run.hosts:
        return [Host(first.url, config.run.concurrency, first, own=False)]
    hosts: list[Host] = []
    for spec in config.run.hosts:
        if spec.url == first.url:
            hosts.append(Host(spec.url, spec.slots, first, own=False))
            continue
        host = _another_host(config, spec, first, warn)
        if host is not None:
            hosts.append(host)
    return hosts


def _another_host(
    config: RunConfig, spec: HostSpec, first: Sandbox, warn: Callable[[str], None]
) -> Host | None:
    """A host beside the first, or None (warned) when it does not answer or runs another engine."""
    try:
        sandbox = _connect(config, spec.url)
    except Gaia2Error as exc:
        warn(f"host left out: {exc.message}")
        return None
    if sandbox.engine != first.engine:  # one run, one engine: its record and fingerprint name it
        sandbox.close()
        warn(
            f"host left out: {spec.url} is {sandbox.engine}, this run's engine is {first.engine} "
            f"(the first host's): give hosts of one engine"
        )
        return None
    return Host(spec.url, spec.slots, sandbox)


def prepare_images(hosts: list[Host], image: str, warn: Callable[[str], None]) -> list[Host]:
    """Make `image` present on every host: the runner's own images are built where missing
    (sandbox/images.py); a host without another image is left out with a warning."""
    from gaia2_runner.config.defaults import AGENT_IMAGE, ORACLE_IMAGE
    from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE, ensure_images

    ready: list[Host] = []
    for host in hosts:
        if len(hosts) > 1 and image in (ORACLE_IMAGE, AGENT_IMAGE, RUNTIME_BASE_IMAGE):
            built = ensure_images(host.sandbox)  # also rebuilds stale ones: every host runs the same code
            if built:
                warn(f"built {', '.join(built)} on {host.url} (missing or stale there)")
        if host.sandbox.image_exists(image):
            ready.append(host)
        else:
            warn(f"host left out: image {image} not found on {host.url}: build or pull it there")
    if not ready:
        raise Gaia2Error(
            f"image {image} not found on any host: build it (gaia2-runner images build) or pull it"
        )
    return ready


def slot_order(hosts: list[Host]) -> list[Host]:
    """One entry per slot, hosts interleaved, so the first runs spread over every host."""
    order: list[Host] = []
    for round_ in range(max((h.slots for h in hosts), default=0)):
        order.extend(h for h in hosts if h.slots > round_)
    return order


class HostWatch:
    """Pings every host in use; gives one up (`give_up`) after HOST_FAILURES misses in a row."""

    def __init__(self, hosts: list[Host], on_lost: Callable[[Host, str], None]) -> None:
        self.hosts, self.on_lost = hosts, on_lost
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="gaia2-host-watch", daemon=True)

    def start(self) -> None:
        if len(self.hosts) > 1:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stop.wait(HOST_CHECK_S):
            for host in [h for h in self.hosts if not h.lost]:
                if host.sandbox.ping(
                    timeout=HOST_CHECK_S
                ):  # the driver's: podman's /libpod ping 404s on Docker
                    host.failures = 0
                    continue
                host.failures += 1
                if host.failures >= HOST_FAILURES:
                    self.give_up(host, f"engine host {host.url} stopped answering")

    def give_up(self, host: Host, why: str) -> bool:
        """Mark `host` lost unless it is the last one in use; True when it was given up now."""
        with self._lock:
            if host.lost or not any(not h.lost for h in self.hosts if h is not host):
                return False
            host.sandbox.lost.set()
        self.on_lost(host, why)
        return True
