"""Model endpoint URLs as a scenario container sees them.

Every scenario runs in its own container with its own network stack, so `127.0.0.1`, `localhost`,
`::1` or `0.0.0.0` in a base URL is the container itself, never the machine running the model
server: such a URL can only fail, after a container start and retries per scenario. It is refused
when the config is checked, with the name that reaches the host instead.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit, urlunsplit

from gaia2_runner.errors import Gaia2Error

HOST_GATEWAY = "host.containers.internal"  # the host as podman's containers see it (/etc/hosts)
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


def loopback_host(url: str) -> str | None:
    """The URL's host when it is a loopback or unspecified address (the container's own), else None."""
    try:
        host = (urlsplit(url.strip()).hostname or "").rstrip(".").lower()
    except ValueError:
        return None
    if not host:
        return None
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    return host if address.is_loopback or address.is_unspecified else None


def via_host_gateway(url: str) -> str:
    """`url` with its host replaced by HOST_GATEWAY (port, path and query kept)."""
    parts = urlsplit(url.strip())
    netloc = HOST_GATEWAY + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def check_not_loopback(url: str | None, where: str) -> None:
    """One error naming `where` when `url` points at the container's own loopback."""
    host = loopback_host(url or "")
    if host is None:
        return
    raise Gaia2Error(
        f"{where}: {url} points at {host}, which inside the scenario container is the container itself, "
        f"not this machine: use {via_host_gateway(str(url))} ({HOST_GATEWAY} is the host as containers "
        "see it) and make the model server listen on 0.0.0.0, not only on 127.0.0.1"
    )
