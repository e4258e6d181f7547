"""How many connections the agent may hold open on the daemon's servers at once.

The adapter API, the tool API and the model relay are served by one process, with a thread per
connection. Every one of them is reachable from the agent, so without a bound an agent could open
connections until that process has no file descriptor (or the container no pid) left: the runner's
status polls would then go unanswered, the daemon's watchdog would take the runner for gone, and a
run the agent was failing would end as an infrastructure error, which `--retry` runs again.

Connections are told apart by the owner of the peer's socket, from the kernel's tables of the
container's network namespace (/proc/net/tcp and tcp6, where an IPv6 socket connected to an IPv4
listener appears): a socket the agent's uid owns is the agent's, and so is a local peer missing
from the tables. The runner's connections reach the daemon through podman's port forwarder, whose
sockets are not the agent's, and they are never refused.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import sys
import threading
import time
from pathlib import Path

from ..agent.process import agent_identity

log = logging.getLogger("gaia2.http")

AGENT_CONNECTIONS_MAX = 128  # open at once, over all the daemon's servers
TCP_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
TIME_WAIT, LISTEN = "06", "0A"  # the `st` column
TABLE_FRESH_S = 1.0  # the longest one read of the tables answers for the connections it lists
REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"
)

Endpoint = tuple[str, int]
Row = tuple[int, int]  # owner uid, socket inode


def read_sockets(tables: tuple[Path, ...] = TCP_TABLES) -> dict[tuple[Endpoint, Endpoint], Row]:
    """(local endpoint, remote endpoint) -> (owner uid, inode) of every TCP socket in the tables;
    IPv4-mapped IPv6 endpoints are written as IPv4."""
    sockets = {}
    for table in tables:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            # TIME_WAIT and LISTEN rows own no connection (and say uid 0): never let one stand in.
            if len(fields) > 9 and fields[3] not in (TIME_WAIT, LISTEN):
                sockets[(_endpoint(fields[1]), _endpoint(fields[2]))] = (int(fields[7]), int(fields[9]))
    return sockets


def _endpoint(text: str) -> Endpoint:
    """ "0100007F:1F9A" (or 32 hex digits for IPv6: 32-bit words in host order) -> ("127.0.0.1", 8090)."""
    address, port = text.split(":")
    raw = b"".join(int(address[i : i + 8], 16).to_bytes(4, sys.byteorder) for i in range(0, len(address), 8))
    ip = ipaddress.ip_address(raw)
    mapped = getattr(ip, "ipv4_mapped", None)
    return str(mapped or ip), int(port, 16)


class ConnectionBudget:
    """Counts the open connections of every server in the process; once `limit` are open, a new
    one is looked up and refused when the agent owns it (so the agent never holds more than
    `limit`), while the runner's and the daemon's own always get in."""

    def __init__(
        self,
        limit: int = AGENT_CONNECTIONS_MAX,
        agent_uid: int | None = None,
        tables: tuple[Path, ...] = TCP_TABLES,
    ) -> None:
        self.limit = limit
        self.agent_uid = agent_uid
        self.tables = tables
        self.refused = 0
        self._open: set[int] = set()
        self._lock = threading.Lock()
        self._sockets: dict[tuple[Endpoint, Endpoint], Row] = {}
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
            peer, local = conn.getpeername()[:2], conn.getsockname()[:2]
            inode = os.fstat(conn.fileno()).st_ino
        except (OSError, ValueError):
            return False  # not a TCP peer: not one the agent could have opened here
        # One read of the tables serves a whole flood: the queued connections are in it already
        # (our end without an inode until accepted). It is read again when it does not list our
        # end of this connection, lists another socket there, or is older than TABLE_FRESH_S.
        ours = self._sockets.get((local, peer))
        if ours is None or ours[1] not in (0, inode) or time.monotonic() - self._read_at > TABLE_FRESH_S:
            self._sockets, self._read_at = read_sockets(self.tables), time.monotonic()
        row = self._sockets.get((peer, local))
        if row is None:  # a local peer is in the tables while it is connected: gone, or hidden
            return ipaddress.ip_address(peer[0]).is_loopback or peer[0] == local[0]
        return row[0] == self.agent_uid

    def admit(self, conn: socket.socket) -> bool:
        """Count `conn` in, or False (refused: the caller closes it)."""
        with self._lock:
            if len(self._open) >= self.limit and self.is_agents(conn):
                self.refused += 1
                if self.refused in (1, 100, 10000):
                    log.warning(
                        "refused the agent's connection number %d over %d open", self.refused, self.limit
                    )
                return False
            self._open.add(id(conn))
            return True

    def release(self, conn: socket.socket) -> None:
        with self._lock:
            self._open.discard(id(conn))

    @property
    def open(self) -> int:
        return len(self._open)


def refuse(conn: socket.socket) -> None:
    """Tell a refused client why (503, once, without waiting for it to read) before it is closed."""
    try:
        conn.setblocking(False)
        conn.send(REFUSAL)
    except OSError:
        pass


AGENT_CONNECTIONS = ConnectionBudget.for_this_container()  # one per process: its fds are shared
