"""results.jsonl survives concurrent writers and a writer killed mid-stream."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from gaia2_runner.output.results_log import ResultsLog, drop_partial_tail, rewrite
from jsonl_file import read_records


def test_partial_trailing_line_is_skipped_then_cut(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    log = ResultsLog(path)
    log.append({"scenario_id": "a", "success": True})
    log.append({"scenario_id": "b", "success": False})
    with open(path, "ab") as fh:  # what a writer killed in the middle would leave
        fh.write(b'{"scenario_id": "c", "succ')
    assert [r["scenario_id"] for r in read_records(path)] == ["a", "b"]
    ResultsLog(path).append({"scenario_id": "d", "success": None})
    assert [r["scenario_id"] for r in read_records(path)] == ["a", "b", "d"]
    assert path.read_bytes().endswith(b"\n")


def test_drop_partial_tail_edge_cases(tmp_path: Path):
    path = tmp_path / "r.jsonl"
    drop_partial_tail(path)  # missing file: nothing to do
    path.write_bytes(b'{"half')
    drop_partial_tail(path)
    assert path.read_bytes() == b""
    path.write_bytes(b'{"a":1}\n' + b"x" * 200_000)  # the torn line is longer than one scan block
    drop_partial_tail(path)
    assert path.read_bytes() == b'{"a":1}\n'


def test_concurrent_appends_never_interleave(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    log = ResultsLog(path)
    payload = "x" * 20_000  # bigger than a pipe buffer, so a torn write would show

    def writer(n: int) -> None:
        for i in range(50):
            log.append({"scenario_id": f"t{n}-{i}", "blob": payload, "note": "line\nbreak"})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 401
    records = [json.loads(line) for line in lines[:-1]]  # every line parses on its own
    assert len({r["scenario_id"] for r in records}) == 400


WRITER = """
import sys
from gaia2_runner.output.results_log import ResultsLog
log = ResultsLog(sys.argv[1])
print("ready", flush=True)
i = 0
while True:
    log.append({"scenario_id": f"s{i}", "blob": "y" * 5000})
    i += 1
"""


def test_kill_9_mid_stream_leaves_a_readable_file(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    records = read_records(path)
    assert records and all(r["blob"] == "y" * 5000 for r in records)
    assert [r["scenario_id"] for r in records] == [f"s{i}" for i in range(len(records))]
    ResultsLog(path).append({"scenario_id": "after"})
    assert read_records(path)[-1] == {"scenario_id": "after"}


def test_rewrite_replaces_the_file(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"old": 1}\n{"broken')
    rewrite(path, [{"a": 1}, {"b": 2}])
    assert read_records(path) == [{"a": 1}, {"b": 2}]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
