"""Read the files an agent leaves in its $HOME with the agent's permissions, never root's.

The daemon runs as root and collects files by name from a directory the agent owns
(`trace.jsonl`, `agent_error.txt`). The agent decides what those names are: a symlink to
/proc/1/environ (the judge's key) or to /gaia2/input/scenario.json (the answers), a hard link, a
FIFO that blocks a reader forever, or a file of many gigabytes. Every such read goes through
`collect`, which holds these rules:

- The file is opened by a short-lived child process running as the agent user (its uid and gid,
  no supplementary groups, an empty environment, `python -I -S`). It can read only what the agent
  could read itself, so no link trick gains anything. Dropping privileges inside the daemon
  instead (os.seteuid) would be unsafe: glibc applies it to every thread of this multi-threaded
  process, including the ones serving the judge.
- Only a bare file name is accepted. The child opens the home with O_DIRECTORY|O_NOFOLLOW and the
  name relative to it with O_NOFOLLOW|O_NONBLOCK (a symlink fails, a FIFO cannot block), then
  checks the open descriptor: a regular file owned by the agent's uid, or nothing is read. The
  checks apply to the descriptor, so swapping the file between them does not help; a hard link to
  a root-owned file keeps root as owner and is refused.
- The daemon takes at most `cap` bytes from the child's pipe, within a deadline, whatever the
  child does. (A leftover agent process could ptrace the child, both being the agent user: the
  most that buys is choosing bytes the agent could have written into the file directly.)
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ... import places
from ..processes import OWN_CHILDREN
from .process import agent_identity

log = logging.getLogger("gaia2.agent_files")

TRACE_CAP_BYTES = 64 * 1024 * 1024
ERROR_CAP_BYTES = 4096
CHUNK = 1 << 20

# Runs as the agent user: argv = home, name, max bytes to read. Exit codes: see _REFUSALS.
_READER = r"""
import os, stat, sys
home, name, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    d = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=d)
except FileNotFoundError:
    sys.exit(10)
except OSError:
    sys.exit(11)
st = os.fstat(fd)
if not stat.S_ISREG(st.st_mode):
    sys.exit(12)
if st.st_uid != os.getuid():
    sys.exit(13)
while limit > 0:
    chunk = os.read(fd, min(limit, 1 << 20))
    if not chunk:
        break
    limit -= len(chunk)
    view = memoryview(chunk)
    while view:
        view = view[os.write(1, view):]
"""
_MISSING = 10
_REFUSALS = {
    11: "a symlink or not openable by the agent user",
    12: "not a regular file",
    13: "not owned by the agent user",
}


@dataclass
class Collected:
    """What `collect` found: `size` bytes delivered, or why none were (`refused`)."""

    found: bool = False
    size: int = 0
    truncated: bool = False
    refused: str | None = None


def collect(
    name: str, sink: Callable[[bytes], None], cap: int, timeout_s: float = 30.0, home: Path | None = None
) -> Collected:
    """Feed at most `cap` bytes of `$HOME/<name>` to `sink`, read as the agent (see module doc)."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a bare file name: {name!r}")
    home = home or places.AGENT_HOME
    command = [sys.executable, "-I", "-S", "-c", _READER, str(home), name, str(cap + 1)]
    result = Collected()
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
            cwd="/",
            **agent_identity(),
        )
    except OSError as exc:  # the verdict must still be published: collect nothing, say why
        result.refused = f"cannot start the reader: {exc}"
        log.error("$HOME/%s not collected: %s", name, result.refused)
        return result

    OWN_CHILDREN.add(proc.pid)  # its exit code says what was read: nobody else reaps it
    try:
        _read_into(proc, sink, cap, timeout_s, result)
    finally:
        if proc.poll() is None:
            proc.kill()
        assert proc.stdout is not None
        proc.stdout.close()
        code: int | None
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        OWN_CHILDREN.discard(proc.pid)
    if result.refused is None and not result.truncated and code:
        if code == _MISSING:
            return result
        result.refused = _REFUSALS.get(code, f"reader exited with code {code}")
    result.found = result.refused is None
    if result.refused:
        log.warning("$HOME/%s not collected: %s", name, result.refused)
    elif result.truncated:
        log.warning("$HOME/%s larger than %d bytes: only the first %d collected", name, cap, cap)
    return result


def _read_into(
    proc: subprocess.Popen[bytes],
    sink: Callable[[bytes], None],
    cap: int,
    timeout_s: float,
    result: Collected,
) -> None:
    """Feed the reader's output to `sink` until it ends, `cap` is reached or `timeout_s` passes."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    fd = proc.stdout.fileno()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            result.refused = f"not read within {timeout_s:g}s ({result.size} bytes kept)"
            break
        if not select.select([fd], [], [], remaining)[0]:
            continue
        chunk = os.read(fd, CHUNK)
        if not chunk:
            break
        room = cap - result.size
        if len(chunk) > room:
            chunk, result.truncated = chunk[:room], True
        if chunk:
            sink(chunk)
            result.size += len(chunk)
        if result.truncated:
            break


def read_agent_file(name: str, cap: int) -> bytes:
    """The first `cap` bytes of `$HOME/<name>`, or b"" when it is absent or refused."""
    parts: list[bytes] = []
    collect(name, parts.append, cap, timeout_s=5.0)
    return b"".join(parts)


def copy_agent_file(name: str, dest: Path, cap: int) -> Collected:
    """Copy `$HOME/<name>` to `dest` (created only when there is something to write)."""
    out = None

    def write(chunk: bytes) -> None:
        nonlocal out
        if out is None:
            out = dest.open("wb")
        out.write(chunk)

    try:
        return collect(name, write, cap)
    finally:
        if out is not None:
            out.close()
