"""The typed values of the settings that are parsed from text: engine hosts and a shard.

Parsed once, where the settings are loaded (config/load.py); the run (execution/), the sandbox and
the commands take these objects and never read the text again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from gaia2_runner.config.defaults import MAX_CONCURRENCY, MAX_SHARDS
from gaia2_runner.errors import Gaia2Error

HOST_SCHEMES = ("unix", "ssh", "tcp", "http")


class Shard(NamedTuple):
    """Slice `index` (1-based) of a `count`-way partition of the planned scenarios (`I/N`)."""

    # The natural names, though they hide tuple.index/count (a Shard is never searched or counted).
    index: int  # type: ignore[assignment]
    count: int  # type: ignore[assignment]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class HostSpec:
    """One `[run] hosts` / `--host` entry: an engine API URL and its slots. `explicit`: the slots
    were given (`URL=N`); otherwise they follow `[run] concurrency` (config/load.py fills them)."""

    url: str
    slots: int
    explicit: bool = False

    def __str__(self) -> str:
        """The entry as written in a config: `URL` or `URL=N`."""
        return f"{self.url}={self.slots}" if self.explicit else self.url


def printable_value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def parse_shard(value: str, where: str = "--shard") -> Shard:
    """`I/N` -> Shard(I, N) with 1 <= I <= N <= 10000; one Gaia2Error naming `where` otherwise."""
    index, sep, count = str(value).strip().partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if (
        not sep
        or not (1 <= i <= n <= MAX_SHARDS)
        or not index.strip().isdigit()
        or not count.strip().isdigit()
    ):
        raise Gaia2Error(
            f"{where}: shard must be I/N with 1 <= I <= N <= {MAX_SHARDS} (e.g. 2/8 for the "
            f"second of 8 slices), got {printable_value(value)}"
        )
    return Shard(i, n)


def parse_host(entry: str, concurrency: int, where: str = "--host") -> HostSpec:
    """`URL` or `URL=N` -> HostSpec; N defaults to `concurrency` (checked with the other settings)."""
    url, slots, explicit = str(entry).strip(), concurrency, False
    head, sep, tail = url.rpartition("=")
    if sep and tail.strip().isdigit():
        url, slots, explicit = head.strip(), int(tail), True
    scheme = urlsplit(url).scheme
    if scheme not in HOST_SCHEMES or not url.partition("://")[2]:
        raise Gaia2Error(
            f"{where}: {printable_value(entry)} is not an engine API URL: use unix:///path.sock, "
            "ssh://user@host/run/podman/podman.sock or tcp://host:port, optionally =N for N slots"
        )
    if urlsplit(url).password is not None:  # it would end up in result.json and runner.log
        raise Gaia2Error(
            f"{where}: {urlsplit(url).hostname} has a password in its URL: remove it and log in "
            "with an ssh key or agent (?identity=PATH)"
        )
    if explicit and not 1 <= slots <= MAX_CONCURRENCY:
        raise Gaia2Error(
            f"{where}: {printable_value(entry)}: slots must be 1 to {MAX_CONCURRENCY}, got {slots}"
        )
    return HostSpec(url, slots, explicit)


def parse_hosts(
    values: list[str] | tuple[str, ...], concurrency: int, where: str = "--host"
) -> tuple[HostSpec, ...]:
    """Every entry of `[run] hosts` / `--host`, each URL once."""
    hosts: list[HostSpec] = []
    for entry in values:
        host = parse_host(entry, concurrency, where)
        if any(host.url == seen.url for seen in hosts):
            raise Gaia2Error(f"{where}: {host.url} is listed twice: give it once, with =N for more slots")
        hosts.append(host)
    return tuple(hosts)


def with_concurrency(hosts: tuple[HostSpec, ...], concurrency: int) -> tuple[HostSpec, ...]:
    """The hosts with the slots they were not given set to `concurrency` (each, as before)."""
    return tuple(h if h.explicit else HostSpec(h.url, concurrency) for h in hosts)
