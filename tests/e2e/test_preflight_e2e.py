"""Preflight end to end: `gaia2-runner run` as a user types it, real containers, the scripted
provider on the host (or nothing listening). A dead, refusing or misnamed endpoint ends the job in
seconds with one `error:` line, before any scenario container starts or any result is written; a
healthy one lets the run go on exactly as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_e2e_llm_agent import ADD, SCENARIO, SEND

from fake_llm.server import FakeLLM
from gaia2_runner.config.endpoints import HOST_GATEWAY
from gaia2_runner.execution.preflight import PREFLIGHT_ID
from gaia2_runner.sandbox.ownership import LABEL_OUTPUT_DIR, LABEL_RUNNER, LABEL_SCENARIO_ID
from gaia2_runner.sandbox.ports import free_port

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

CLI = [sys.executable, "-m", "gaia2_runner.cli"]
ENDS_WITHIN_S = 15.0  # issue 20's bound for a stopped server, whole command included
KEY = "sk-preflight-SECRET-42"
EVENTS_SETTLE_S = 10.0  # how long podman's event log may trail the API


@pytest.fixture
def judge():
    """A healthy judge endpoint of its own, so each test breaks only the agent's."""
    server = FakeLLM()
    server.start()
    yield server
    server.stop()


def gaia2_run(out: Path, base_url: str, judge_url: str, *extra: str, model: str = "fake-model"):
    """`gaia2-runner run --agent llm` against `base_url`; (process, seconds it took)."""
    argv = [
        *CLI,
        "run",
        "--agent",
        "llm",
        "--provider",
        "openai-compat",
        "--model",
        model,
        "--base-url",
        base_url,
        "--api-key-env",
        "PREFLIGHT_TEST_KEY",
        "--judge-provider",
        "openai-compat",
        "--judge-model",
        "fake-judge",
        "--judge-base-url",
        judge_url,
        "--scenario",
        str(SCENARIO),
        "--output-dir",
        str(out),
        *extra,
    ]
    started = time.monotonic()
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PREFLIGHT_TEST_KEY": KEY, "COLUMNS": "250"},
    )
    return proc, time.monotonic() - started


def url(server: FakeLLM | int) -> str:
    port = server if isinstance(server, int) else server.port
    return f"http://{HOST_GATEWAY}:{port}/v1"


def containers_created(sandbox, since: float, out: Path, at_least: int = 0) -> list[str]:
    """The gaia2.scenario_id labels of the containers podman created since `since` for runs into
    `out` (from its event log: containers are removed by the time a run ends). Podman's event log
    can trail the API by a moment (CI once read it empty straight after a run), so it is read again
    until it holds `at_least` creations or EVENTS_SETTLE_S has passed."""
    deadline = time.monotonic() + EVENTS_SETTLE_S
    while True:
        resp = sandbox.driver.client.api.get(
            "/events",
            params={
                "since": str(int(since) - 1),
                "until": str(int(time.time()) + 1),
                "stream": "false",
                "filters": json.dumps({"type": ["container"], "event": ["create"]}),
            },
        )
        resp.raise_for_status()
        events = [json.loads(line) for line in resp.text.splitlines() if line.strip()]
        labels = [(e.get("Actor") or {}).get("Attributes") or {} for e in events]
        created = [
            attrs.get(LABEL_SCENARIO_ID, "")
            for attrs in labels
            if attrs.get(LABEL_RUNNER) == "1"
            and attrs.get(LABEL_OUTPUT_DIR, "").startswith(str(out.resolve()))
        ]
        if len(created) >= at_least or time.monotonic() > deadline:
            return created
        time.sleep(0.5)


def assert_stopped_before_any_scenario(proc, out: Path, sandbox, since: float, *fragments: str) -> str:
    """Exit 2, one `error:` line holding `fragments`, no key, no scenario container, nothing written."""
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (
        proc.stdout + proc.stderr
    )
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert KEY not in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    assert set(containers_created(sandbox, since, out)) <= {PREFLIGHT_ID}, "a scenario container started"
    assert not list(out.rglob("result.json")) and not list(out.rglob("results.jsonl"))
    return lines[0]


def test_a_stopped_server_ends_the_job_in_seconds_and_so_does_a_dry_run(images, sandbox, judge, tmp_path):
    dead = url(free_port())  # nothing listens there
    since = time.time()
    proc, seconds = gaia2_run(tmp_path / "out", dead, url(judge))
    print(f"\nstopped server: the job ended after {seconds:.1f}s (bound {ENDS_WITHIN_S:g}s)")
    line = assert_stopped_before_any_scenario(
        proc, tmp_path / "out", sandbox, since, f"--base-url {dead}", "connection refused", "0.0.0.0"
    )
    assert containers_created(sandbox, since, tmp_path / "out", at_least=1) == [
        PREFLIGHT_ID
    ]  # the check ran in one
    assert seconds < ENDS_WITHIN_S
    assert judge.probes and not judge.requests  # the judge was checked too, and found healthy

    since = time.time()
    dry, seconds = gaia2_run(tmp_path / "dry", dead, url(judge), "--dry-run")
    print(f"stopped server, --dry-run: {seconds:.1f}s")
    assert assert_stopped_before_any_scenario(dry, tmp_path / "dry", sandbox, since) == line
    assert "would start" in dry.stdout  # the plan is printed first


def test_a_refused_key_is_one_line_naming_where_the_key_came_from(images, sandbox, judge, fake, tmp_path):
    fake.set_script({"preflight": [{"status": 401, "message": "Incorrect API key provided"}]})
    since = time.time()
    proc, _ = gaia2_run(tmp_path / "out", url(fake), url(judge))
    assert_stopped_before_any_scenario(
        proc,
        tmp_path / "out",
        sandbox,
        since,
        "--base-url",
        "HTTP 401",
        "Incorrect API key provided",
        "PREFLIGHT_TEST_KEY (--api-key-env)",
    )
    assert fake.probes[0]["headers"]["authorization"] == f"Bearer {KEY}"


def test_an_unknown_model_is_one_line(images, sandbox, judge, fake, tmp_path):
    fake.set_script({"preflight": [{"status": 404, "message": "The model `gpt-typo` does not exist."}]})
    since = time.time()
    proc, _ = gaia2_run(tmp_path / "out", url(fake), url(judge), model="gpt-typo")
    assert_stopped_before_any_scenario(
        proc, tmp_path / "out", sandbox, since, "HTTP 404 for model 'gpt-typo'", "does not exist", "--model"
    )


def test_a_dead_judge_is_named_as_the_judge(images, sandbox, fake, tmp_path):
    dead = url(free_port())
    since = time.time()
    proc, _ = gaia2_run(tmp_path / "out", url(fake), dead)
    assert_stopped_before_any_scenario(
        proc,
        tmp_path / "out",
        sandbox,
        since,
        f"--judge-base-url {dead} (judge endpoint)",
        "connection refused",
    )
    assert "(agent endpoint)" not in proc.stderr and len(fake.probes) == 2  # the agent's were fine


def test_a_healthy_server_lets_the_run_proceed_as_before(images, sandbox, fake, tmp_path):
    fake.set_script({"chat": [ADD, SEND]})
    since = time.time()
    proc, _ = gaia2_run(tmp_path / "out", url(fake), url(fake))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (result,) = list((tmp_path / "out").rglob("result.json"))
    assert '"success": true' in result.read_text()
    # Two agent probes (plain, one tool) and the judge's, all outside the scripted conversation.
    assert len(fake.probes) == 3 and [r["route"] for r in fake.llm_requests()] == ["chat", "chat"]
    assert "warning" not in proc.stderr.lower()
    created = containers_created(sandbox, since, tmp_path / "out", at_least=2)
    assert created == [PREFLIGHT_ID, "demo_calendar_add_event"]


def test_a_model_that_answers_tools_with_text_is_a_warning_and_no_preflight_skips_it(
    images, sandbox, judge, fake, tmp_path
):
    fake.set_script({"preflight": [{"text": "OK"}, {"text": '```json\n{"name": "x"}\n```'}]})
    dry, _ = gaia2_run(tmp_path / "out", url(fake), url(judge), "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "tool calls: text only" in dry.stdout and "text-format agents can still work" in dry.stdout
    assert not (tmp_path / "out").exists()

    probes = len(fake.probes)
    skipped, _ = gaia2_run(tmp_path / "out", url(free_port()), url(judge), "--dry-run", "--no-preflight")
    assert skipped.returncode == 0 and "preflight: skipped, turned off (--no-preflight)" in skipped.stdout
    assert len(fake.probes) == probes
