"""scripts/model_server.py and the argument handling of scripts/setup-model-server.sh (no llama-server:
a real HTTP server on 127.0.0.1 plays its /health, /tokenize and chat endpoints; no build runs)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import model_server
from gaia2_container.budget import fitting_limit

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "setup-model-server.sh"


class FakeLlamaServer(BaseHTTPRequestHandler):
    """/health 200; /tokenize one token per word; chat completions report the prompt's word count."""

    seen: list[dict] = []

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send({"status": "ok"})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeLlamaServer.seen.append({"path": self.path, **body})
        if self.path == "/tokenize":
            self._send({"tokens": list(range(len(body["content"].split())))})
        else:
            words = sum(len(m["content"].split()) for m in body["messages"])
            self._send(
                {
                    "choices": [{"message": {"content": "ok"}}],
                    "usage": {"prompt_tokens": words, "completion_tokens": body["max_tokens"]},
                }
            )


@pytest.fixture
def fake_server():
    FakeLlamaServer.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeLlamaServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_the_run_line_puts_agent_and_judge_on_the_server_one_at_a_time_with_the_fitted_timeout():
    line = model_server.run_line(8123, "qwen2.5-coder-0.5b", 540, "are-default", ".venv/bin/gaia2-runner")
    words = model_server.run_words(line)
    flags = dict(zip(words[2::2], words[3::2]))
    url = "http://host.containers.internal:8123/v1"
    assert words[:2] == [".venv/bin/gaia2-runner", "run-dataset"]
    assert flags == {
        "--dataset-root": "examples/scenarios",
        "--agent": "are-default",
        "--provider": "openai-compat",
        "--model": "qwen2.5-coder-0.5b",
        "--base-url": url,
        "--judge-provider": "openai-compat",
        "--judge-model": "qwen2.5-coder-0.5b",
        "--judge-base-url": url,
        "--concurrency": "1",
        "--timeout": "540",
        "--output-dir": "out/qwen2.5-coder-0.5b-are-default-demo",
    }
    assert all(len(row) <= 100 for row in line.splitlines())


def test_a_first_call_of_realistic_size_is_timed_and_fits_the_printed_timeout(fake_server, tmp_path):
    speed = model_server.measure(fake_server, "m")
    chat = [r for r in FakeLlamaServer.seen if r["path"] == "/v1/chat/completions"]
    assert len(chat) == 1 and chat[0]["max_tokens"] == model_server.REPLY_TOKENS and chat[0]["ignore_eos"]
    # sized with the server's own token count: within one filler block of the target
    assert abs(speed.prompt_tokens - model_server.FIRST_PROMPT_TOKENS) < 400, speed
    assert speed.reply_tokens == model_server.REPLY_TOKENS and speed.seconds >= 0

    (tmp_path / "log").write_text("loaded\n")
    out = model_server.report(
        fake_server,
        "m",
        pid=os.getpid(),
        log=tmp_path / "log",
        agent="llm",
        stop_command="bash scripts/setup-model-server.sh --stop --port 1",
    )
    words = model_server.run_words(out)
    assert words[1] == "run-dataset" and words[words.index("--agent") + 1] == "llm"
    assert words[words.index("--timeout") + 1] == str(fitting_limit(speed.seconds))
    assert out.splitlines()[-1] == "Stop the server: bash scripts/setup-model-server.sh --stop --port 1"


def test_a_server_that_exits_before_it_answers_is_reported_with_its_log(tmp_path):
    proc = subprocess.Popen(["true"])
    proc.wait()
    (tmp_path / "log").write_text("error: couldn't bind HTTP server socket\n")
    with pytest.raises(model_server.ServeError, match="(?s)exited before it answered.*couldn.t bind"):
        model_server.wait_healthy(1, proc.pid, tmp_path / "log", timeout=5)


def test_a_taken_port_is_not_free():
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        sock.listen()
        assert not model_server.free_port(sock.getsockname()[1])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--port", "0"], "error: --port 0: give a port number from 1 to 65535"),
        (["--serve", "--port"], "error: --port needs a number"),
        (["--agent", "codex"], "error: --agent codex: use are-default or llm"),
        (["--frobnicate"], "error: unknown argument '--frobnicate'"),
    ],
)
def test_bad_arguments_get_one_error_line_before_any_build(args, message):
    proc = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith(message), proc.stderr


def test_stopping_a_port_with_no_server_says_so(tmp_path):
    proc = subprocess.run(
        ["bash", str(SCRIPT), "--stop", "--port", "8131"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GAIA2_MODEL_CACHE": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "no server started by this script runs on port 8131" in proc.stderr
