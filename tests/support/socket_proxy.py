"""A unix-socket relay in front of an engine's real API socket, which a test stops and starts again.

The runner pointed at the relay (CONTAINER_HOST / DOCKER_HOST = `proxy.url`) sees an API outage
when the test stops it: the listening socket is closed and removed, and every relayed connection
(a request in flight, a kept-alive connection, a log stream) is cut at once, while the engine and
its containers keep running. The same on podman and Docker, and nothing is killed: stopping
dockerd itself would kill Docker's containers (unless live-restore is on), so a real daemon
outage cannot be the same test on both engines.

`stop_on(pattern)` arms a one-shot outage at an exact moment of the runner's conversation: the
first request whose bytes match the pattern is dropped unrelayed and the relay stops, so a test
needs no sleeps to make an outage meet, say, the collection of a run's output.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from pathlib import Path

CHUNK = 64 * 1024
ACCEPT_POLL_S = 0.1  # how soon the accept loop notices a stop


class SocketProxy:
    """Relays connections on the unix socket `path` to the unix socket `target` (a path or unix:// URL).
    `tcp=True`: it listens on 127.0.0.1 instead (a plain tcp:// engine address, no TLS), on the same
    port after a restart; `path` is then unused."""

    def __init__(self, path: Path, target: str, tcp: bool = False) -> None:
        self.path = Path(path)
        self.target = target.removeprefix("unix://")
        self.tcp = tcp
        self.port = 0  # the tcp port, once listening
        self.connections = 0  # relayed so far (a test can tell the runner came this way)
        self.tripped = threading.Event()  # set when a stop_on pattern stopped the relay
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None
        self._stopping = threading.Event()
        self._open: set[socket.socket] = set()
        self._trigger: re.Pattern[bytes] | None = None

    @property
    def url(self) -> str:
        return f"tcp://127.0.0.1:{self.port}" if self.tcp else f"unix://{self.path}"

    @property
    def running(self) -> bool:
        return self._listener is not None

    def start(self) -> SocketProxy:
        """Listen on `path` (again, after a stop)."""
        with self._lock:
            assert self._listener is None, "the relay is already running"
            listener = self._listen()
            listener.settimeout(ACCEPT_POLL_S)
            self._stopping = threading.Event()
            self._listener = listener
            self._acceptor = threading.Thread(
                target=self._accept, args=(listener, self._stopping), name="socket-proxy-accept", daemon=True
            )
            self._acceptor.start()
        return self

    def _listen(self) -> socket.socket:
        if self.tcp:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            self.port = listener.getsockname()[1]
        else:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(self.path))
        listener.listen(64)
        return listener

    def stop(self) -> None:
        """The outage: no new connection is accepted (the socket is gone) and every relayed one is cut."""
        with self._lock:
            listener, acceptor = self._listener, self._acceptor
            self._listener = self._acceptor = None
            self._stopping.set()
            for sock in self._open:
                _cut(sock)
            self._open.clear()
        if listener is not None:
            listener.close()
            if not self.tcp:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
        if acceptor is not None and acceptor is not threading.current_thread():
            acceptor.join(timeout=5)

    def stop_on(self, pattern: bytes) -> threading.Event:
        """Arm a one-shot outage: the first client chunk matching the regex `pattern` is not relayed,
        and the relay stops. Returns `tripped` (cleared now, set when it happened)."""
        with self._lock:
            self.tripped.clear()
            self._trigger = re.compile(pattern)
        return self.tripped

    def __enter__(self) -> SocketProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # relaying -----------------------------------------------------------------------------------
    def _accept(self, listener: socket.socket, stopping: threading.Event) -> None:
        while not stopping.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:  # closed by stop()
                return
            client.settimeout(None)
            engine = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                engine.connect(self.target)
            except OSError:
                client.close()
                engine.close()
                continue
            with self._lock:
                if stopping.is_set():  # stop() ran while this one connected
                    _cut(client)
                    _cut(engine)
                    return
                self._open.update((client, engine))
                self.connections += 1
            pair = _Pair(client, engine)
            for src, dst, watched in ((client, engine, True), (engine, client, False)):
                threading.Thread(
                    target=self._pump, args=(pair, src, dst, watched), name="socket-proxy-pump", daemon=True
                ).start()

    def _pump(self, pair: _Pair, src: socket.socket, dst: socket.socket, watched: bool) -> None:
        """Copy one direction until EOF or a cut; `watched`: the client's side (stop_on looks at it)."""
        try:
            while data := src.recv(CHUNK):
                if watched and self._trips(data):
                    self.stop()
                    return
                dst.sendall(data)
            dst.shutdown(socket.SHUT_WR)  # pass a half-close on
        except OSError:
            _cut(dst)
        finally:
            if pair.one_done():
                with self._lock:
                    self._open.difference_update(pair.socks)
                pair.close()

    def _trips(self, data: bytes) -> bool:
        with self._lock:
            if self._trigger is None or not self._trigger.search(data):
                return False
            self._trigger = None
        self.tripped.set()
        return True


class _Pair:
    """A client connection and its engine connection; closed when both directions ended."""

    def __init__(self, client: socket.socket, engine: socket.socket) -> None:
        self.socks = (client, engine)
        self._left = 2
        self._lock = threading.Lock()

    def one_done(self) -> bool:
        """One direction ended; True for the second (the pair can be closed)."""
        with self._lock:
            self._left -= 1
            return self._left == 0

    def close(self) -> None:
        for sock in self.socks:
            sock.close()


def _cut(sock: socket.socket) -> None:
    """Shut a relayed socket both ways (its pump sees EOF or an error and ends)."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
