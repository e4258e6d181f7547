"""One job per output directory: the job writing into it holds `job.lock` there until it ends.

Two jobs started into one directory would both run every scenario (twice the cost) and the later
writer's files would win. So a job takes the lock before it writes anything, without waiting: a
second job is refused at once with one line naming the first.

flock(2) does the locking: the kernel drops it when the holder ends, however it ends (kill -9
included), so a dead job never keeps a directory. The file records who holds it (host, boot id,
pid namespaces, pid and its start time, as sandbox/ownership.py defines a runner process; when
the job started, its command) for the refusal's message, and the holder deletes it on release. A
record found in a lock nobody holds is a job that was killed: taken over with a notice (the kernel's
word wins over the record: a copied directory's record names a live process that holds nothing).
Where the filesystem has no flock (ENOLCK, EOPNOTSUPP), the record alone decides: a holder provably
gone (same host and boot, pid dead or reused; or an earlier boot) is taken over, any other refuses.

Shards share one directory (output/layout.py): shard I of N holds `shards/I-of-N/job.lock`
exclusively and the root's `job.lock` shared; a whole-directory job holds the root's exclusively.
So shards run side by side, and never beside a whole-directory job or the same shard twice.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shlex
import sys
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict, dataclass
from pathlib import Path

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.layout import JOB_LOCK_FILE, shard_dir, shard_dirs
from gaia2_runner.sandbox import ownership
from gaia2_runner.text import now_iso, one_line

NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}  # flock unsupported here
HINT = "wait for it to finish, or choose another --output-dir"
GONE_WHY = {ownership.DEAD: "its process is gone", ownership.OTHER_BOOT: "the machine restarted since"}
RECORD_CAP = 64 * 1024


@dataclass(frozen=True)
class Holder:
    """What a lock file records about the job holding it."""

    owner: ownership.Owner
    started_at: str
    command: str
    shard: str = ""  # "I/N" for a shard's lock

    def describe(self) -> str:
        return (
            f"pid {self.owner.pid} on host {self.owner.host}, started {self.started_at}, "
            f"command: {one_line(self.command, limit=300)}"
        )

    def to_json(self) -> bytes:
        return (
            json.dumps(
                {
                    **asdict(self.owner),
                    "started_at": self.started_at,
                    "command": self.command,
                    "shard": self.shard,
                },
                indent=2,
            ).encode()
            + b"\n"
        )

    @classmethod
    def parse(cls, data: bytes) -> Holder | None:
        try:
            doc = json.loads(data.decode("utf-8"))
            owner = ownership.Owner(
                host=str(doc["host"]),
                boot_id=str(doc["boot_id"]),
                pid=int(doc["pid"]),
                start_time=str(doc["start_time"]),
                invocation=str(doc.get("invocation", "")),
                namespaces=str(doc.get("namespaces", "")),
            )
            return cls(owner, str(doc["started_at"]), str(doc["command"]), str(doc.get("shard", "")))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def this_command() -> str:
    """The command line of this process, as typed (the program by its name, not its path)."""
    argv = [Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python", *sys.argv[1:]]
    if argv[0] in ("__main__.py", "-m"):
        argv[0] = "gaia2-runner"
    return shlex.join(argv)


class DirLockHeld(Gaia2Error):
    """Another job holds the directory (one line: who, and what to do)."""


@dataclass
class _Held:
    path: Path
    fd: int
    exclusive: bool


class DirLock:
    """The locks one job holds; `release` (or leaving the `with`) drops them and deletes the
    files nobody else holds, and the directories taking them created, when still empty."""

    def __init__(self, held: list[_Held], created: list[Path]) -> None:
        self.held, self.created = held, created

    def __enter__(self) -> DirLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def release(self) -> None:
        for item in reversed(self.held):
            # Shared (the root of a sharded directory): delete it only when no other shard holds it.
            if item.exclusive or _try_flock(item.fd, fcntl.LOCK_EX):
                with suppress(OSError):
                    if os.fstat(item.fd).st_ino == os.stat(item.path).st_ino:
                        item.path.unlink()  # while still locked: a waiter that opened it retries (_lock_one)
            os.close(item.fd)
        self.held = []
        for directory in self.created:
            with suppress(OSError):
                directory.rmdir()  # only when empty: the job ended before writing anything
        self.created = []


def lock_output_dir(
    output_dir: Path,
    shard: tuple[int, int] | None = None,
    *,
    command: str | None = None,
    notice: Callable[[str], None] = lambda _m: None,
    hint: str = HINT,
) -> DirLock:
    """Take the lock of `output_dir` (of its shard I of N) for this process; raises DirLockHeld
    naming the holder when another job holds it. `notice` hears of a dead job's lock taken over."""
    root = Path(output_dir)
    record = Holder(
        ownership.current_owner(),
        now_iso(),
        command or this_command(),
        f"{shard[0]}/{shard[1]}" if shard else "",
    )
    try:
        created = _make_dirs(shard_dir(root, shard) if shard else root)
    except OSError as exc:
        raise Gaia2Error(f"--output-dir {root}: cannot create it: {exc.strerror or exc}") from None
    lock = DirLock([], created)
    try:
        if shard is None:
            lock.held.append(_lock_one(root / JOB_LOCK_FILE, record, notice, hint, root, exclusive=True))
        else:
            lock.held.append(_lock_one(root / JOB_LOCK_FILE, None, notice, hint, root, exclusive=False))
            lock.held.append(
                _lock_one(shard_dir(root, shard) / JOB_LOCK_FILE, record, notice, hint, root, exclusive=True)
            )
            _refuse_other_plans(root, shard, hint)
    except BaseException as exc:
        lock.release()
        if isinstance(exc, OSError):
            raise Gaia2Error(
                f"--output-dir {root}: cannot take its lock ({JOB_LOCK_FILE}): "
                f"{exc.strerror or exc}: check that the directory is writable"
            ) from None
        raise
    return lock


def read_holders(output_dir: Path) -> list[Holder]:
    """The jobs whose records sit in the directory's lock files (root first, then shards); a
    record may be a killed job's (a reader cannot tell without taking the lock)."""
    paths = [Path(output_dir) / JOB_LOCK_FILE, *(d / JOB_LOCK_FILE for _, d in shard_dirs(output_dir))]
    return [h for p in paths if (h := Holder.parse(_read(p))) is not None]


def _lock_one(
    path: Path, record: Holder | None, notice: Callable[[str], None], hint: str, root: Path, exclusive: bool
) -> _Held:
    """Lock `path` (a record is written only under an exclusive lock). Retries while the file it
    locked was deleted by a releasing holder meanwhile (then a newer file is the lock)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            locked = _try_flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            if locked is False:
                raise DirLockHeld(_refusal(root, path, hint))
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            if exclusive:
                _claim(fd, path, record, notice, hint, root, flock_works=locked is True)
            return _Held(path, fd, exclusive)
        except BaseException:
            with suppress(OSError):
                os.close(fd)
            raise


def _refuse_other_plans(root: Path, shard: tuple[int, int], hint: str) -> None:
    """Shards of another plan (`--shard i/M`, M not N) share scenarios with this one: two such jobs
    would run them twice into the same directories. Raise DirLockHeld when one of them is live."""
    for (_index, count), directory in shard_dirs(root):
        if count == shard[1]:
            continue
        path = directory / JOB_LOCK_FILE
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if _try_flock(fd, fcntl.LOCK_SH) is False:
                raise DirLockHeld(_refusal(root, path, hint))
        finally:
            os.close(fd)


def _try_flock(fd: int, kind: int) -> bool | None:
    """True: locked; False: another holds it; None: this filesystem has no flock."""
    try:
        fcntl.flock(fd, kind | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in NO_FLOCK:
            return None
        raise


def _claim(
    fd: int,
    path: Path,
    record: Holder | None,
    notice: Callable[[str], None],
    hint: str,
    root: Path,
    flock_works: bool,
) -> None:
    """The lock is ours (or flock is unsupported): judge the record found there, then write ours."""
    old = Holder.parse(_read_fd(fd))
    if old is not None and old.owner.invocation != ownership.current_owner().invocation:
        state = ownership.owner_state(old.owner)
        if flock_works or state in GONE_WHY:  # the kernel says nobody holds it; the record says why
            why = GONE_WHY.get(state, "it no longer holds the lock")
            notice(f"took over {path}: the job that held it is gone ({why}): {old.describe()}")
        else:
            raise DirLockHeld(
                f"{_subject(root, old)} is in use by another gaia2-runner job: {old.describe()} "
                f"(this filesystem has no file locks, so whether it still runs cannot be checked: "
                f"if it is gone, delete {path}): {hint}"
            )
    if record is not None:
        os.ftruncate(fd, 0)
        os.pwrite(fd, record.to_json(), 0)
        os.fsync(fd)


def _refusal(root: Path, path: Path, hint: str) -> str:
    """Who holds `path`: its record; for the root's lock held shared, the running shards."""
    holder = Holder.parse(_read(path))
    if holder is not None and ownership.owner_state(holder.owner) not in GONE_WHY:
        return f"{_subject(root, holder)} is in use by another gaia2-runner job: {holder.describe()}: {hint}"
    shards = [h for h in read_holders(root) if h.shard and ownership.owner_state(h.owner) not in GONE_WHY]
    if path.parent == root and shards:
        listed = "; ".join(f"shard {h.shard}: {h.describe()}" for h in shards[:3])
        more = f"; and {len(shards) - 3} more" if len(shards) > 3 else ""
        return f"{root} is in use by {len(shards)} shard job(s) of gaia2-runner: {listed}{more}: {hint}"
    return f"{root} is in use by another gaia2-runner job (it holds {path}; no record of it yet): {hint}"


def _subject(root: Path, holder: Holder) -> str:
    return f"{root} (shard {holder.shard})" if holder.shard else str(root)


def _make_dirs(directory: Path) -> list[Path]:
    """mkdir -p, returning the directories it created, deepest first (release removes them if empty)."""
    missing: list[Path] = []
    probe = directory
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    directory.mkdir(parents=True, exist_ok=True)
    return missing


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(RECORD_CAP)
    except OSError:
        return b""


def _read_fd(fd: int) -> bytes:
    return os.pread(fd, RECORD_CAP, 0)
