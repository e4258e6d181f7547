"""Caps on what the agent can make the daemon write: agent.log, and log lines it can trigger.

Every file in the output directory is collected by the runner (the directory is a volume on the
host's disk), so nothing the agent controls may grow without bound: agent.log
keeps the agent's first AGENT_LOG_MAX_BYTES of stdout+stderr and then one marker line (the rest is
read and dropped, so the agent never blocks on a full pipe); daemon.log and the container log keep
DAEMON_LOG_MAX_BYTES of lines, each cut at LOG_LINE_MAX_CHARS.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

AGENT_LOG_MAX_BYTES = 4 << 20
DAEMON_LOG_MAX_BYTES = 8 << 20
LOG_LINE_MAX_CHARS = 4000
READ_BYTES = 1 << 16
MARKER_PREFIX = "[gaia2] agent.log truncated"


class CappedAgentLog:
    """A pipe for the agent's stdout+stderr whose reader keeps the first `cap` bytes in `path`."""

    def __init__(self, path: Path, cap: int = AGENT_LOG_MAX_BYTES) -> None:
        self.path, self.cap = path, cap
        self.kept = self.dropped = 0
        self.done = threading.Event()
        self._read_fd, self.write_fd = os.pipe()
        # Started before the agent: under a fork bomb no thread may be left to start later.
        threading.Thread(target=self._copy, name="agent-log", daemon=True).start()

    def close_writer(self) -> None:
        """The daemon's copy of the write end (the agent holds its own): EOF once the agent's close."""
        os.close(self.write_fd)

    def _copy(self) -> None:
        with self.path.open("ab") as out:
            while chunk := os.read(self._read_fd, READ_BYTES):
                room = self.cap - self.kept
                if room > 0:
                    out.write(chunk[:room])
                    out.flush()
                    self.kept += min(room, len(chunk))
                if len(chunk) > room:
                    if not self.dropped:
                        out.write(
                            f"\n{MARKER_PREFIX} at {self.cap} bytes: the rest of the agent's output "
                            "is discarded\n".encode()
                        )
                        out.flush()
                    self.dropped += len(chunk) - max(room, 0)
            if self.dropped:
                out.write(f"{MARKER_PREFIX}: {self.dropped} bytes discarded\n".encode())
        os.close(self._read_fd)
        self.done.set()


class LogBudget(logging.Filter):
    """One instance on every handler of the daemon's log (daemon.log, stderr): lines cut at
    LOG_LINE_MAX_CHARS, and past `cap` characters one marker line, then nothing."""

    def __init__(self, cap: int = DAEMON_LOG_MAX_BYTES) -> None:
        super().__init__()
        self.cap, self.used, self._lock = cap, 0, threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        decided = getattr(record, "gaia2_kept", None)
        if decided is not None:  # the same record at the next handler
            return bool(decided)
        message = record.getMessage()
        if len(message) > LOG_LINE_MAX_CHARS:
            message = f"{message[:LOG_LINE_MAX_CHARS]} … [{len(message) - LOG_LINE_MAX_CHARS} characters cut]"
        record.msg, record.args = message, None
        with self._lock:
            keep = self.used < self.cap
            self.used += len(message) + 80  # the line's prefix
            if keep and self.used >= self.cap:
                record.msg = f"[gaia2] log truncated at {self.cap} bytes: later lines are dropped"
        record.gaia2_kept = keep
        return keep
