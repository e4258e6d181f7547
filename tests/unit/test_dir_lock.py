"""One job per output directory (output/dir_lock.py): held, refused with the holder named, a dead
or earlier-boot holder taken over, released however the job ends, shards side by side.

Holders are real processes (a child python taking the lock), so the refusals cross processes as
they do between two `gaia2-runner` jobs; a killed child leaves a real stale record.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.aggregate import aggregate
from gaia2_runner.exit_codes import EXIT_USAGE
from gaia2_runner.output import dir_lock
from gaia2_runner.output.dir_lock import DirLockHeld, Holder, lock_output_dir, read_holders
from gaia2_runner.output.layout import JOB_LOCK_FILE

HOLD = """
import sys
from gaia2_runner.output.dir_lock import lock_output_dir
shard = tuple(int(x) for x in sys.argv[2].split("/")) if len(sys.argv) > 2 else None
with lock_output_dir(sys.argv[1], shard, command="gaia2-runner run-dataset --output-dir X"):
    print("held", flush=True)
    sys.stdin.readline()
"""


class Holding:
    """A child process holding the lock until `end` (or a kill)."""

    def __init__(self, out: Path, shard: str | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(out), *([shard] if shard else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "held"

    def end(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        assert self.proc.wait(10) == 0

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


@pytest.fixture
def holders():
    started: list[Holding] = []
    yield started
    for holding in started:
        if holding.proc.poll() is None:
            holding.kill()


def test_a_second_job_is_refused_naming_the_first(tmp_path: Path, holders) -> None:
    out = tmp_path / "out"
    holders.append(first := Holding(out))
    record = json.loads((out / JOB_LOCK_FILE).read_text())
    assert record["pid"] == first.proc.pid and record["host"] == socket.gethostname()
    assert record["boot_id"] == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert record["started_at"] and record["command"] == "gaia2-runner run-dataset --output-dir X"
    with pytest.raises(DirLockHeld) as refused:
        lock_output_dir(out)
    message = refused.value.message
    assert (
        f"{out} is in use by another gaia2-runner job: pid {first.proc.pid} on host {socket.gethostname()}"
        in message
    )
    assert (
        f"started {record['started_at']}" in message
        and "command: gaia2-runner run-dataset --output-dir X" in message
    )
    assert message.endswith("wait for it to finish, or choose another --output-dir") and "\n" not in message
    assert isinstance(refused.value, Gaia2Error)  # the CLI's one `error:` line, exit EXIT_USAGE
    assert EXIT_USAGE == 2
    first.end()
    assert not (out / JOB_LOCK_FILE).exists()  # released: the file goes with it
    with lock_output_dir(out):
        assert json.loads((out / JOB_LOCK_FILE).read_text())["pid"] == os.getpid()


def test_released_on_error_and_on_ctrl_c_and_a_new_directory_left_as_found(tmp_path: Path) -> None:
    out = tmp_path / "new" / "out"
    for exc in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)):
            with lock_output_dir(out):
                assert (out / JOB_LOCK_FILE).is_file()
                raise exc
        assert not (tmp_path / "new").exists()  # nothing was written: the directories it made are gone
    with lock_output_dir(out):
        (out / "summary.json").write_text("{}")
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]


def test_a_killed_jobs_lock_is_taken_over_with_a_notice(tmp_path: Path, holders) -> None:
    out = tmp_path / "out"
    holders.append(victim := Holding(out))
    victim.kill()  # kill -9: no release, the record stays; the kernel dropped the flock
    assert json.loads((out / JOB_LOCK_FILE).read_text())["pid"] == victim.proc.pid
    notices: list[str] = []
    with lock_output_dir(out, notice=notices.append):
        assert json.loads((out / JOB_LOCK_FILE).read_text())["pid"] == os.getpid()
    assert len(notices) == 1 and "\n" not in notices[0]
    assert notices[0].startswith(
        f"took over {out / JOB_LOCK_FILE}: the job that held it is gone (its process is gone): "
        f"pid {victim.proc.pid} on host {socket.gethostname()}"
    )


def _stale_record(out: Path, **changes: object) -> None:
    """A record naming a process of this machine that has ended, with `changes` on top."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    record = json.loads(
        Holder(dir_lock.ownership.current_owner(), "2026-01-01T00:00:00+00:00", "gaia2-runner run").to_json()
    )
    record.update({"pid": dead.pid, "invocation": "someone-else", **changes})
    out.mkdir(parents=True, exist_ok=True)
    (out / JOB_LOCK_FILE).write_text(json.dumps(record))


def test_a_lock_of_an_earlier_boot_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _stale_record(
        out, boot_id="00000000-0000-0000-0000-000000000000", pid=os.getppid()
    )  # pid alive, boot not
    notices: list[str] = []
    with lock_output_dir(out, notice=notices.append):
        pass
    assert len(notices) == 1 and "(the machine restarted since)" in notices[0]


def test_a_copied_record_of_a_live_process_does_not_block(tmp_path: Path) -> None:
    """The kernel's word wins: a record naming a live process that holds no lock (a directory
    copied while its job ran) is taken over, not a reason to refuse forever."""
    out = tmp_path / "out"
    _stale_record(out, pid=os.getppid(), start_time=dir_lock.ownership._proc_stat(os.getppid())[1])
    notices: list[str] = []
    with lock_output_dir(out, notice=notices.append):
        pass
    assert len(notices) == 1 and "(it no longer holds the lock)" in notices[0]


def test_an_output_dir_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(Gaia2Error, match=r"^--output-dir .*file/out: cannot create it: Not a directory$"):
        lock_output_dir(tmp_path / "file" / "out")


def test_a_live_holder_the_lock_missed_is_still_refused(tmp_path: Path, monkeypatch) -> None:
    """A filesystem without flock: the record alone decides; a live holder or one on another host
    refuses (the latter saying how to clear it), a dead one is taken over."""

    def no_flock(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_flock)
    out = tmp_path / "out"
    _stale_record(out, pid=os.getppid(), start_time=dir_lock.ownership._proc_stat(os.getppid())[1])
    with pytest.raises(DirLockHeld, match=f"pid {os.getppid()} on host"):
        lock_output_dir(out)
    _stale_record(out, host="elsewhere.example")
    with pytest.raises(DirLockHeld, match=r"cannot be checked: if it is gone, delete .*job\.lock\): wait"):
        lock_output_dir(out)
    _stale_record(out)
    notices: list[str] = []
    with lock_output_dir(out, notice=notices.append):
        pass
    assert len(notices) == 1 and "its process is gone" in notices[0]
    assert not (out / JOB_LOCK_FILE).exists()


def test_shards_run_side_by_side_but_not_twice_nor_beside_a_whole_directory_job(
    tmp_path: Path, holders
) -> None:
    out = tmp_path / "out"
    holders.append(one := Holding(out, "1/2"))
    assert (out / "shards" / "1-of-2" / JOB_LOCK_FILE).is_file()
    with pytest.raises(DirLockHeld, match=r"\(shard 1/2\) is in use"):
        lock_output_dir(out, (1, 3))  # another plan's shard shares scenarios with it: refused
    assert not (out / "shards" / "1-of-3" / JOB_LOCK_FILE).exists()
    with lock_output_dir(out, (2, 2)):  # another shard: fine
        with pytest.raises(
            DirLockHeld,
            match=r"\(shard 1/2\) is in use by another gaia2-runner job: "
            f"pid {one.proc.pid}",
        ):
            lock_output_dir(out, (1, 2))
        with pytest.raises(DirLockHeld) as whole:
            lock_output_dir(out)
        assert (
            f"{out} is in use by 2 shard job(s) of gaia2-runner: shard 1/2: pid {one.proc.pid}"
            in whole.value.message
        )
        assert f"shard 2/2: pid {os.getpid()}" in whole.value.message
        with pytest.raises(DirLockHeld, match="in use by 2 shard job"):
            aggregate(out, allow_partial=True)  # aggregate writes the root: not while shards run
        assert sorted(h.shard for h in read_holders(out)) == ["1/2", "2/2"]
    one.end()
    assert not (out / JOB_LOCK_FILE).exists()  # the last shard out removes the root's lock
    holders.append(whole_job := Holding(out))
    with pytest.raises(
        DirLockHeld, match=f"{out} is in use by another gaia2-runner job: pid {whole_job.proc.pid}"
    ):
        lock_output_dir(out, (1, 2))
    assert not (out / "shards" / "1-of-2" / JOB_LOCK_FILE).exists()  # a refused shard leaves nothing behind
    whole_job.end()


def test_the_command_recorded_is_the_one_typed(monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/venv/bin/gaia2-runner", "run", "--output-dir", "my out"])
    assert dir_lock.this_command() == "gaia2-runner run --output-dir 'my out'"
    monkeypatch.setattr(sys, "argv", ["/x/gaia2_runner/cli/__main__.py", "judge", "out"])
    assert dir_lock.this_command() == "gaia2-runner judge out"


def test_judge_is_refused_while_a_job_writes_there(tmp_path: Path, holders) -> None:
    """`judge` writes beside every result: it takes the directory's lock before any container."""
    from gaia2_runner.config import judge_overrides
    from gaia2_runner.execution.rejudge import rejudge_output
    from gaia2_runner.output.layout import ARE_TRACE_FILE, RESULT_FILE

    out = tmp_path / "out"
    run = out / "demo_cab_order"
    run.mkdir(parents=True)
    (run / RESULT_FILE).write_text(json.dumps({"scenario_id": "demo_cab_order", "success": True}))
    (run / ARE_TRACE_FILE).write_bytes(b"\x1f\x8b")
    holders.append(job := Holding(out))
    with pytest.raises(
        DirLockHeld,
        match=f"in use by another gaia2-runner job: pid {job.proc.pid} .*: "
        "wait for it to finish, then judge the directory$",
    ):
        rejudge_output(out, judge_overrides({}), {})
    assert not (out / "rejudge_summary.json").exists() and not (run / "rejudged.json").exists()
    job.end()


def test_a_lock_file_deleted_under_a_taker_is_not_taken(tmp_path: Path, monkeypatch) -> None:
    """A releasing holder deletes the file while another job has it open: that job's flock then
    lands on a file nobody will look at again, so it takes the file now at the path instead."""
    out = tmp_path / "out"
    out.mkdir()
    real_open, opened = os.open, []

    def open_then_lose_it(path, flags, mode=0o777, **kw):
        fd = real_open(path, flags, mode, **kw)
        if str(path).endswith(JOB_LOCK_FILE) and not opened:
            opened.append(fd)
            os.unlink(path)  # what a releasing holder does, between this open and the flock
        return fd

    monkeypatch.setattr(dir_lock.os, "open", open_then_lose_it)
    with lock_output_dir(out):
        monkeypatch.undo()
        assert json.loads((out / JOB_LOCK_FILE).read_text())["pid"] == os.getpid()
        with pytest.raises(DirLockHeld):
            lock_output_dir(out)  # the file at the path is the one held
    assert len(opened) == 1
