"""`scripts/setup-model-server.sh --serve`, the newcomer's CPU path, run as README shows it.

On a free port: the script sets up (cached), starts llama-server in the background with the flags it
owns, times a first call of realistic size, and prints the run line to paste. The test reads that line
(agent and judge on this server as containers see it, one scenario at a time, a --timeout that is
budget.py's fit for the measured time), asks the server a question on the host's own non-loopback
address (it must listen on 0.0.0.0 for containers to reach it), then stops it with the printed
`--stop` command and checks the port is free again.
"""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

import model_server
from gaia2_container.budget import fitting_limit
from gaia2_runner.sandbox.ports import free_port
from real_model import SETUP_SCRIPT, SETUP_TIMEOUT_S

SERVE_TIMEOUT_S = SETUP_TIMEOUT_S + model_server.HEALTH_TIMEOUT_S + 600  # a build, loading, the timed call
pytestmark = [pytest.mark.integration, pytest.mark.real_model, pytest.mark.timeout(SERVE_TIMEOUT_S + 120)]
MEASURED = re.compile(r"took (\d+\.\d) s, so --timeout (\d+) ")
LOG = re.compile(r"\(pid \d+; log (\S+)\)")


def host_address() -> str:
    """This machine's address on its default route (not 127.0.0.1): what a bridge network reaches."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the route
        return probe.getsockname()[0]


def test_serve_prints_a_run_line_for_a_server_containers_can_reach_and_stop_stops_it():
    port = free_port()
    try:
        proc = subprocess.run(
            ["bash", str(SETUP_SCRIPT), "--serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=SERVE_TIMEOUT_S,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        print(proc.stdout)  # the newcomer's view, in the test log

        words = model_server.run_words(proc.stdout)
        flags = dict(zip(words[2::2], words[3::2]))
        url = f"http://host.containers.internal:{port}/v1"
        assert words[0].endswith("gaia2-runner") and words[1] == "run-dataset", words
        assert flags["--dataset-root"] == "examples/scenarios" and flags["--agent"] == "are-default"
        assert (flags["--provider"], flags["--base-url"]) == ("openai-compat", url)
        assert (flags["--judge-provider"], flags["--judge-base-url"]) == ("openai-compat", url)
        assert flags["--judge-model"] == flags["--model"] and flags["--concurrency"] == "1"
        measured = MEASURED.search(proc.stdout)
        assert measured, proc.stdout
        seconds, limit = float(measured[1]), int(measured[2])
        assert seconds > 0 and int(flags["--timeout"]) == limit == fitting_limit(seconds)

        reply = httpx.post(
            f"http://{host_address()}:{port}/v1/chat/completions",
            timeout=300,
            json={
                "model": flags["--model"],
                "max_tokens": 8,
                "messages": [{"role": "user", "content": "Say hello."}],
            },
        )
        assert reply.status_code == 200 and reply.json()["choices"][0]["message"], reply.text
        stop_line = proc.stdout.splitlines()[-1]
        assert stop_line == f"Stop the server: bash scripts/setup-model-server.sh --stop --port {port}"
    finally:
        stop = subprocess.run(
            ["bash", str(SETUP_SCRIPT), "--stop", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert stop.returncode == 0 and "stopped llama-server" in stop.stderr, stop.stderr
    assert model_server.free_port(port)
    log = LOG.search(proc.stdout)
    assert log, proc.stdout
    Path(log[1]).unlink()  # the cache keeps the logs of a user's ports, not of the test's random ones
