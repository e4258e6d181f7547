"""serve: refuses paths outside the output dir, pushes page changes, regenerates incrementally."""

from __future__ import annotations

import http.client
import json
import os
import random
import threading
import time
from pathlib import Path

import pytest

from ctrl_c import restore_ctrl_c
from gaia2_runner.viewer.live import serve
from gaia2_runner.viewer.server import Broker, make_server
from viewer_synth import dataset_tree, result_doc, write_scenario


@pytest.fixture
def server(tmp_path: Path):
    root = tmp_path / "out"
    root.mkdir()
    (root / "index.html").write_text("hello")
    (tmp_path / "secret.txt").write_text("top secret")
    httpd = make_server(root, "127.0.0.1", 0, Broker())
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1], root
    httpd.shutdown()
    httpd.server_close()


def get(port: int, path: str) -> tuple[int, bytes]:
    status, body, _ = fetch(port, path)
    return status, body


def fetch(port: int, path: str) -> tuple[int, bytes, http.client.HTTPMessage]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.putrequest("GET", path, skip_accept_encoding=True)  # sent as written, no normalisation
    conn.endheaders()
    response = conn.getresponse()
    return response.status, response.read(), response.headers


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E%2Fsecret.txt",
        "/sub/..%2f..%2fsecret.txt",
        "/..%5csecret.txt",
        "/./../secret.txt",
    ],
)
def test_traversal_is_refused(server, path: str) -> None:
    port, _ = server
    status, body = get(port, path)
    assert status in (403, 404)
    assert b"top secret" not in body


def test_symlink_out_of_the_root_is_refused(server, tmp_path: Path) -> None:
    port, root = server
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    status, body = get(port, "/link.txt")
    assert status == 403 and b"top secret" not in body


def test_files_inside_are_served(server) -> None:
    port, _ = server
    assert get(port, "/index.html") == (200, b"hello")


@pytest.mark.parametrize(
    "name", ["agent.log", "events.jsonl", "result.json", "notes.txt", "evil.html", "evil.svg", "noext"]
)
def test_logs_and_other_files_show_as_text_never_as_a_page(server, name: str) -> None:
    port, root = server
    (root / "s").mkdir()
    (root / "s" / name).write_text("<script>alert(1)</script> line\n")
    status, body, headers = fetch(port, f"/s/{name}")
    assert status == 200 and body == b"<script>alert(1)</script> line\n"
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src 'self'" in headers["Content-Security-Policy"]


def test_the_viewer_pages_and_assets_keep_their_types(server) -> None:
    port, root = server
    (root / "s").mkdir()
    (root / "s" / "trace.html").write_text("<p>page</p>")
    (root / "_viewer").mkdir()
    (root / "_viewer" / "viewer.js").write_text("1")
    assert fetch(port, "/index.html")[2]["Content-Type"] == "text/html; charset=utf-8"
    assert fetch(port, "/s/trace.html")[2]["Content-Type"] == "text/html; charset=utf-8"
    assert fetch(port, "/_viewer/viewer.js")[2]["Content-Type"] == "text/javascript; charset=utf-8"


def test_directories_are_never_listed(server) -> None:
    port, root = server
    (root / "sub").mkdir()
    (root / "sub" / "agent.log").write_text("x")
    (root / "evil.com").mkdir()
    status, body, _ = fetch(port, "/sub/")
    assert status == 404 and b"agent.log" not in body
    status, _, headers = fetch(port, "/sub")  # the usual trailing-slash redirect, then 404 as above
    assert status == 301 and headers["Location"] == "/sub/"
    status, _, headers = fetch(port, "//evil.com")
    assert status in (301, 404) and not (headers["Location"] or "").startswith("//")  # never to another site
    assert fetch(port, "/")[0] == 200  # the root has index.html


def test_special_files_and_links_inside_are_not_opened(server) -> None:
    port, root = server
    os.mkfifo(root / "pipe.log")  # open() would block the handler forever
    (root / "inner.log").write_text("inner")
    (root / "link.log").symlink_to(root / "inner.log")
    assert get(port, "/pipe.log")[0] == 404
    assert get(port, "/link.log")[0] == 404
    assert get(port, "/inner.log") == (200, b"inner")


def test_names_that_are_not_utf8_are_served_by_their_bytes(server) -> None:
    port, root = server
    name = os.fsdecode(b"caf\xe9 #1.log")
    (root / name).write_text("latin-1 name")
    assert get(port, "/caf%E9%20%231.log") == (200, b"latin-1 name")


def test_serve_regenerates_the_changed_scenario_and_announces_it(tmp_path: Path) -> None:
    dirs = dataset_tree(tmp_path, 4)
    lines: list[str] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=serve, args=(tmp_path, "127.0.0.1", 0), kwargs={"say": lines.append, "stop": stop}, daemon=True
    )
    thread.start()
    deadline = time.time() + 20
    while not lines and time.time() < deadline:
        time.sleep(0.05)
    port = int(lines[0].split(":")[-1].split("/")[0])
    mtimes = {d: (d / "trace.html").stat().st_mtime_ns for d in dirs}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    conn.request("GET", "/__events")
    stream = conn.getresponse()
    assert stream.headers["Content-Type"] == "text/event-stream"
    stream.readline()  # ": connected"
    new = write_scenario(
        tmp_path / "time" / "scenario_live", "scenario_live", random.Random(5), state="running"
    )
    (new / "result.json").write_text(json.dumps(result_doc("scenario_live", True)))
    seen: set[str] = set()
    while {"index.html", "time/scenario_live/trace.html"} - seen and time.time() < deadline:
        line = stream.readline().decode().strip()
        if line.startswith("data: "):
            seen.add(line[6:])
    assert {"index.html", "time/scenario_live/trace.html"} <= seen
    assert "scenario_live" in (tmp_path / "index.html").read_text()
    assert all((d / "trace.html").stat().st_mtime_ns == mtimes[d] for d in dirs)
    stop.set()
    thread.join(10)
    assert not thread.is_alive() and lines[-1] == "stopped"


def test_serve_command_prints_url_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    dataset_tree(tmp_path, 2)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; "
            "from gaia2_runner.cli.commands.serve import serve_cmd as serve_command; "
            "sys.exit(serve_command(Path(sys.argv[1])))",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore_ctrl_c,
    )
    try:
        first = proc.stdout.readline()
        assert first.startswith("serving ") and "http://127.0.0.1:" in first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in out
