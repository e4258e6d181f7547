"""`serve` as a process: Ctrl-C at any moment of start-up stops it cleanly; port mistakes are one line.

The start-up test interrupts real processes at points chosen by what they have done so far
(importing, first assets written, pages being written, index written, URL printed), a few rounds,
each bounded by a timeout. There is no timing assertion: the points are observed, not guessed.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ctrl_c import restore_ctrl_c
from viewer_synth import dataset_tree

# Runs serve_command; a Ctrl-C that escapes it is reported with where it was raised, so one that
# lands in these few lines of the harness (before serve_command is entered) is told apart from
# one that leaks out of the product.
CHILD = """
import sys, traceback
from pathlib import Path
try:
    from gaia2_runner.cli.commands.serve import serve_cmd as serve_command
    print("ready", flush=True)
    code = serve_command(Path(sys.argv[1]))
except KeyboardInterrupt as exc:
    inside = any("gaia2_runner" in f.filename for f in traceback.extract_tb(exc.__traceback__))
    print("LEAKED" if inside else "HARNESS", flush=True)
    traceback.print_exc()
    code = 98 if inside else 99
sys.exit(code)
"""


def _pages(root: Path) -> int:
    return sum(1 for _ in root.rglob("trace.html"))


def _wait(condition: Callable[[], bool], proc: subprocess.Popen, limit_s: float = 60.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)


POINTS: dict[str, Callable[[Path, subprocess.Popen], None]] = {
    "importing": lambda root, proc: time.sleep(0.02),
    "assets written": lambda root, proc: _wait(lambda: (root / "_viewer" / "viewer.css").exists(), proc),
    "pages being written": lambda root, proc: _wait(lambda: _pages(root) >= 3, proc),
    "index written": lambda root, proc: _wait(lambda: (root / "index.html").exists(), proc),
}


@pytest.mark.parametrize("round_", [1, 2, 3])
@pytest.mark.parametrize("point", list(POINTS))
def test_ctrl_c_during_start_up_stops_cleanly(tmp_path: Path, point: str, round_: int) -> None:
    template = tmp_path / "template"
    dataset_tree(template, 40, n_calls=(2, 4))
    for attempt in range(3):  # a retry only when the signal beat the harness into serve_command
        root = tmp_path / f"out{attempt}"
        shutil.copytree(template, root)
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=restore_ctrl_c,
        )
        try:
            assert proc.stdout.readline() == "ready\n"
            POINTS[point](root, proc)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        if proc.returncode != 99:
            break
    assert proc.returncode == 0, (out, err)
    assert err == "" and "Traceback" not in out, (out, err)
    assert out.rstrip().endswith("stopped"), out
    assert not [p for p in root.rglob("*.viewer-tmp")], "a half-written page was left behind"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_a_port_out_of_range_is_one_error_line(tmp_path: Path, port: str) -> None:
    proc = _cli("serve", "--output-dir", str(tmp_path), "--port", port)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and port in lines[0], proc.stderr
    assert not (tmp_path / "index.html").exists()  # refused before any work


def test_a_port_in_use_is_one_error_line(tmp_path: Path) -> None:
    dataset_tree(tmp_path, 1)  # a run to serve: a directory without one is refused first (issue 23)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _cli("serve", "--output-dir", str(tmp_path), "--port", str(port))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert (
        len(lines) == 1 and lines[0].startswith("error: cannot serve on 127.0.0.1:") and "in use" in lines[0]
    ), proc.stderr
    assert not (tmp_path / "index.html").exists()  # bound before building, so it failed at once


def test_an_unknown_host_is_one_error_line(tmp_path: Path) -> None:
    dataset_tree(tmp_path, 1)
    proc = _cli("serve", "--output-dir", str(tmp_path), "--host", "no-such-host.invalid")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("error:"), proc.stderr


def test_view_into_an_unwritable_place_is_one_error_line(tmp_path: Path) -> None:
    dataset_tree(tmp_path, 1)
    (tmp_path / "index.html").mkdir()  # the index cannot be written over a directory
    proc = _cli("view", "--output-dir", str(tmp_path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot write the viewer's pages"), proc.stderr
    assert os.path.isdir(tmp_path / "index.html")
