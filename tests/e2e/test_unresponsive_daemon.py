"""A container whose adapter API stops answering: the run is `unresponsive` (no verdict), unless
the daemon wrote a final status file, whose verdict then stands (the run only took longer).

The image is a stand-in daemon: /health says ok, /status never answers, and (unless told not to)
it writes a final daemon_status.json first, as the real daemon does when it finishes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_contract import constants as contract
from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE, ImageSpec, build_image

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

IMAGE = "localhost/gaia2-test-silent-daemon:latest"
SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
SILENT_DAEMON = f"""
import json, os, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
if not os.environ.get("NO_STATUS_FILE"):
    with open("{contract.OUTPUT_DIR}/{contract.STATUS_FILE}", "w") as fh:
        json.dump({{"status": "completed", "judgment": {{"success": False, "rationale": "wrong event"}},
                   "turns": [], "agent_actions": 1}}, fh)
class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if not self.path.startswith("/health"):
            time.sleep(3600)
        body = json.dumps({{"status": "ok", "runtime": "silent"}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
ThreadingHTTPServer(("0.0.0.0", {contract.ADAPTER_PORT}), Handler).serve_forever()
"""


@pytest.fixture(scope="module")
def silent_image(sandbox, images, tmp_path_factory):
    context = tmp_path_factory.mktemp("silent")
    (context / "silent.py").write_text(SILENT_DAEMON)
    (context / "Containerfile").write_text(
        f'FROM {RUNTIME_BASE_IMAGE}\nCOPY silent.py /silent.py\nENTRYPOINT ["python3", "/silent.py"]\n'
    )
    build_image(sandbox, ImageSpec(IMAGE, "Containerfile", {}), context)
    return IMAGE


def run(tmp_path: Path, *env: str) -> dict:
    extra = [arg for item in env for arg in ("--env", item)]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run",
            "--scenario",
            str(SCENARIO),
            "--image",
            IMAGE,
            "--output-dir",
            str(tmp_path),
            "--timeout",
            "3",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads((tmp_path / SCENARIO.stem / "result.json").read_text())


def test_a_final_status_file_gives_the_verdict_the_api_never_did(silent_image, tmp_path):
    result = run(tmp_path)
    assert (result["status"], result["success"], result["error"]) == ("completed", False, None), result
    assert any(
        "no final status after 3s" in r and contract.STATUS_FILE in r for r in result["failure_reasons"]
    )


def test_without_one_the_run_has_no_verdict(silent_image, tmp_path):
    result = run(tmp_path, "NO_STATUS_FILE=1")
    assert (result["status"], result["success"]) == ("unresponsive", None), result
    assert "no final status after 3s" in result["error"]
