"""The daemon's reader of agent-written files (gaia2_container/daemon/agent/files.py), run here on
a temporary home: links, FIFOs, foreign files and oversized files are refused or capped.

In the container the reader runs as the agent user; here (no `agent` user) it runs as the current
user, so "owned by the agent" means owned by us. test_redteam_leaks.py covers the real container.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gaia2_container.daemon.agent.files import collect  # noqa: E402


def read(home: Path, name: str, cap: int = 1000):
    parts: list[bytes] = []
    outcome = collect(name, parts.append, cap, timeout_s=20, home=home)
    return outcome, b"".join(parts)


def test_regular_file_is_read_and_capped(tmp_path):
    (tmp_path / "trace.jsonl").write_bytes(b'{"seq": 0}\n' * 200)
    outcome, data = read(tmp_path, "trace.jsonl", cap=1 << 20)
    assert outcome.found and not outcome.truncated and data == b'{"seq": 0}\n' * 200
    outcome, data = read(tmp_path, "trace.jsonl", cap=25)
    assert outcome.found and outcome.truncated and data == b'{"seq": 0}\n{"seq": 0}\n{"s'


def test_missing_file_is_quietly_absent(tmp_path):
    outcome, data = read(tmp_path, "agent_error.txt")
    assert (outcome.found, outcome.refused, data) == (False, None, b"")


def test_symlinks_and_fifos_are_refused(tmp_path):
    secret = tmp_path.parent / f"{tmp_path.name}-secret.txt"
    secret.write_text("SECRET-VALUE")
    home = tmp_path / "home"
    home.mkdir()
    (home / "trace.jsonl").symlink_to(secret)
    (home / "agent_error.txt").symlink_to("/proc/self/environ")
    os.mkfifo(home / "fifo")
    for name, reason in (
        ("trace.jsonl", "symlink"),
        ("agent_error.txt", "symlink"),
        ("fifo", "not a regular file"),
    ):
        outcome, data = read(home, name)
        assert not outcome.found and reason in (outcome.refused or ""), (name, outcome)
        assert data == b""
    linked_home = tmp_path / "linked-home"
    linked_home.symlink_to(home)
    (home / "ok.txt").write_text("fine")
    assert read(linked_home, "ok.txt")[0].refused, "a home that is itself a link is refused"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another owner needs root")
def test_hard_link_to_a_file_of_another_owner_is_refused(tmp_path):
    foreign = tmp_path / "foreign.txt"
    foreign.write_text("SECRET-VALUE")
    os.chown(foreign, 54321, 54321)
    os.link(foreign, tmp_path / "trace.jsonl")
    outcome, data = read(tmp_path, "trace.jsonl")
    assert outcome.refused == "not owned by the agent user" and data == b""


def test_only_bare_names(tmp_path):
    for name in ("../x", "a/b", "", ".."):
        with pytest.raises(ValueError):
            collect(name, print, 10, home=tmp_path)
