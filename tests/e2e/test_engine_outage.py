"""An engine API outage mid-run costs time, not results, on podman and Docker alike.

The runner talks to the engine through tests/support/socket_proxy.py's relay, which the test stops
at two exact moments of the run (no timing guesses): when the first run's output is being
collected, and when the queued second run asks for its container. The engine and its containers
keep running meanwhile (a real dockerd stop would kill Docker's containers, see the relay's
docstring). The run in flight keeps its verdict and its artifacts, the queued run waits for the
API (`--engine-wait`) instead of failing, and nothing prints a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from container_probe import output_dir_label
from dataset_support import oracle_dataset
from gaia2_runner.config import ORACLE_IMAGE
from gaia2_runner.sandbox.engine_select import HOST_ENV
from polling import until
from socket_proxy import SocketProxy

pytestmark = [pytest.mark.integration, pytest.mark.both_engines, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "scenarios"
IN_FLIGHT, QUEUED = "demo_calendar_add_event", "demo_messaging_send"  # run in this order, one at a time
WAIT_S = 120  # --engine-wait: far longer than the test's outages
STEP_S = 300.0  # the most any one step may take on a loaded 2-core machine
COLLECTING = rb"GET [^ ]*/containers/[^/ ]+/archive\?"  # the output collection (uploads are PUTs)
CREATING = rb"POST [^ ]*/containers/create"


class Lines:
    """A process's stderr, read as it comes (the test waits for the runner's warnings)."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=lambda: self.lines.extend(stream), daemon=True)
        self._thread.start()

    def has(self, text: str) -> bool:
        """Whether `text` was printed (the console may wrap it: whitespace is ignored)."""
        return "".join(text.split()) in "".join("".join(self.lines).split())

    def text(self) -> str:
        self._thread.join(timeout=30)
        return "".join(self.lines)


def test_an_engine_api_outage_mid_run_loses_nothing(engine: str, images, sandbox, tmp_path: Path) -> None:
    data = tmp_path / "data" / "demo"
    data.mkdir(parents=True)
    for order, name in enumerate((IN_FLIGHT, QUEUED)):  # files run in name order
        (data / f"{order}_{name}.json").write_bytes((DEMO / f"{name}.json").read_bytes())
    proxy = SocketProxy(tmp_path / "engine.sock", sandbox.api_url).start()
    collecting = proxy.stop_on(COLLECTING)
    out = tmp_path / "out"
    with open(tmp_path / "stdout.txt", "w+") as stdout:
        runner = subprocess.Popen(
            [
                *oracle_dataset(tmp_path / "data", out),
                "--engine",
                engine,
                "--engine-wait",
                str(WAIT_S),
                # Outage 2 is the queued run's create: a warm spare would have been created before
                # it (an outage while a spare is given its scenario: tests/unit/test_warm_pool.py).
                "--no-warm-pool",
            ],
            cwd=REPO,
            env={**os.environ, HOST_ENV[engine]: proxy.url, "COLUMNS": "200"},
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
        )
        stderr = Lines(runner.stderr)

        def seen(predicate) -> bool:
            """`predicate` came true (False at once when the runner ended first)."""
            return until(lambda: predicate() or runner.poll() is not None, STEP_S) and bool(predicate())

        try:
            # Outage 1: the in-flight run's output collection finds no API.
            assert seen(collecting.is_set), stderr.text()
            # Its container lives on (this run's: another worker may run the same scenario).
            assert sandbox.list_labelled(output_dir_label(out / "demo" / IN_FLIGHT))
            assert seen(lambda: stderr.has(f"API unreachable while collecting {IN_FLIGHT}")), stderr.text()
            creating = proxy.stop_on(CREATING)  # armed before the API is back: the queued run's create
            proxy.start()
            # Outage 2: the queued run cannot get its container; it waits instead of failing.
            assert seen(creating.is_set), stderr.text()
            assert seen(lambda: stderr.has(f"waiting up to {WAIT_S}s for it to come back")), stderr.text()
            proxy.start()
            runner.wait(timeout=STEP_S)
        finally:
            if runner.poll() is None:
                runner.kill()
                runner.wait(timeout=30)
            proxy.stop()
        stdout.seek(0)
        output = stdout.read() + stderr.text()
    assert "Traceback" not in output
    assert runner.returncode == 0, output
    records = {r["scenario_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert {name: records[name]["success"] for name in records} == {IN_FLIGHT: True, QUEUED: True}, output
    assert not any(r["artifacts_lost"] for r in records.values())
    for name in records:  # both runs' artifacts were collected, the in-flight one after the outage
        assert (out / "demo" / name / "events.jsonl").is_file() and (
            out / "demo" / name / "container.log"
        ).is_file()


def test_an_unreachable_engine_address_is_one_error_line(engine: str, tmp_path: Path) -> None:
    """An address the user chose that nothing answers at: one error line naming its variable, no output."""
    variable = HOST_ENV[engine]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run",
            "--scenario",
            str(DEMO / f"{IN_FLIGHT}.json"),
            "--image",
            ORACLE_IMAGE,
            "--engine",
            engine,
            "--output-dir",
            str(tmp_path / "out"),
        ],
        cwd=REPO,
        env={**os.environ, variable: f"unix://{tmp_path}/dead.sock"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and f"fix {variable}" in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()
