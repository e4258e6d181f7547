"""What both engine drivers do alike with an answer of their (Docker-compatible) APIs."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.sandbox.streams import STREAM_CHUNK_BYTES


def published_host_port(engine: str, attrs: dict[str, Any], port: int) -> int:
    """The host port the engine chose for `port` (published without a host port: ssh:// hosts),
    from the container's inspect JSON (the same keys on both engines)."""
    bindings = ((attrs.get("NetworkSettings") or {}).get("Ports") or {}).get(f"{port}/tcp") or []
    for binding in bindings:
        if str(binding.get("HostPort") or "").isdigit():
            return int(binding["HostPort"])
    raise Gaia2Error(f"{engine} published no host port for the adapter port {port}")


@contextlib.contextmanager
def streamed(resp: Any) -> Iterator[Iterator[bytes]]:
    """A streamed HTTP answer as chunks, never read whole (podman-py's own get_archive reads it all
    first: 1.5 GB of agent output cost 3 GB of RAM); closed when the block ends."""
    with contextlib.closing(resp):
        resp.raise_for_status()
        yield resp.iter_content(STREAM_CHUNK_BYTES)
