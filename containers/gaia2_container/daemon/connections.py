"""How many connections the agent may hold open on the daemon's servers at once.

The adapter API, the tool API and the model relay are served by one process, with a thread per
connection. Every one of them is reachable from the agent, so without a bound an agent could open
connections until that process has no file descriptor (or the container no pid) left: the runner's
status polls would then go unanswered, the daemon's watchdog would take the runner for gone, and a
run the agent was failing would end as an infrastructure error, which `--retry` runs again.

Connections are told apart by the owner of the peer's socket, from the kernel's table of the
container's network namespace (/proc/net/tcp): a socket the agent's uid owns is the agent's. The
runner's connections reach the daemon through podman's port forwarder, whose sockets are not the
agent's, and they are never refused.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from pathlib import Path

from .agent_process import agent_identity

log = logging.getLogger("gaia2.http")

AGENT_CONNECTIONS_MAX = 128  # open at once, over all the daemon's servers
TCP_TABLE = Path("/proc/net/tcp")
TABLE_FRESH_S = 1.0  # how long one read of the table answers for the connections it lists


def read_owners(table: Path = TCP_TABLE) -> dict[tuple[str, str], int]:
    """(local endpoint, remote endpoint) -> owner uid of every IPv4 TCP socket in the table."""
    try:
        lines = table.read_text().splitlines()[1:]
    except OSError:
        return {}
    owners = {}
    for line in lines:
        fields = line.split()
        if len(fields) > 7:
            owners[(fields[1], fields[2])] = int(fields[7])
    return owners


def socket_owner(peer: tuple[str, int], local: tuple[str, int], table: Path = TCP_TABLE) -> int | None:
    """The uid owning the peer's end of an IPv4 TCP connection to this network namespace (None:
    not listed, e.g. a peer outside the namespace or one already gone)."""
    return read_owners(table).get((_hex_address(peer), _hex_address(local)))


def _hex_address(address: tuple[str, int]) -> str:
    """"127.0.0.1", 8090 -> "0100007F:1F9A", as /proc/net/tcp writes IPv4 endpoints."""
    host = int.from_bytes(socket.inet_aton(address[0]), "little")
    return f"{host:08X}:{address[1]:04X}"


class ConnectionBudget:
    """Counts the open connections of every server in the process; once `limit` are open, a new
    one is looked up and refused when the agent owns it (so the agent never holds more than
    `limit`), while the runner's and the daemon's own always get in."""

    def __init__(self, limit: int = AGENT_CONNECTIONS_MAX, agent_uid: int | None = None,
                 table: Path = TCP_TABLE) -> None:
        self.limit = limit
        self.agent_uid = agent_uid
        self.table = table
        self.refused = 0
        self._open: set[int] = set()
        self._lock = threading.Lock()
        self._owners: dict[tuple[str, str], int] = {}
        self._read_at = 0.0

    @classmethod
    def for_this_container(cls) -> ConnectionBudget:
        """Bounded when the agent runs as its own user (the daemon is root); otherwise nothing is
        told apart and nothing is refused."""
        return cls(agent_uid=agent_identity().get("user"))

    def is_agents(self, conn: socket.socket) -> bool:
        if self.agent_uid is None:
            return False
        try:
            key = (_hex_address(conn.getpeername()[:2]), _hex_address(conn.getsockname()[:2]))
        except (OSError, ValueError):
            return False  # not an IPv4 TCP peer: not one the agent could have opened here
        # One read of the table serves a whole flood (the queued connections are in it already);
        # it is read again for a connection it lacks, and once it is older than TABLE_FRESH_S.
        if key not in self._owners or time.monotonic() - self._read_at > TABLE_FRESH_S:
            self._owners, self._read_at = read_owners(self.table), time.monotonic()
        return self._owners.get(key) == self.agent_uid

    def admit(self, conn: socket.socket) -> bool:
        """Count `conn` in, or False (refused: the caller closes it)."""
        with self._lock:
            if len(self._open) >= self.limit and self.is_agents(conn):
                self.refused += 1
                if self.refused in (1, 100, 10000):
                    log.warning("refused the agent's connection number %d over %d open", self.refused, self.limit)
                return False
            self._open.add(id(conn))
            return True

    def release(self, conn: socket.socket) -> None:
        with self._lock:
            self._open.discard(id(conn))

    @property
    def open(self) -> int:
        return len(self._open)


AGENT_CONNECTIONS = ConnectionBudget.for_this_container()  # one per process: its fds are shared
