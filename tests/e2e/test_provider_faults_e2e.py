"""Provider faults end to end: real containers, the built-in agent, the scripted provider on the host.

A provider or configuration fault is never scored as the model's failure: an unknown model or a
refused key stops the job with one error line (nothing scored, exit 2, --retry reruns); a 429
storm lowers the job's concurrency and it recovers; a provider that never answers is an
infrastructure error saying so; a context overflow is the agent's failure with that reason; past
the token budget the run is judged on what it did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calendar_demo import ADD, SCENARIO, SEND, SOLVE
from dataset_support import llm_on
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import AGENT_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
HOST = "host.containers.internal"
MODEL = "fake-model"
KEY = "sk-fault-test-SECRET"
TYPO = "fake-modle"
UNKNOWN_MODEL = {
    "status": 404,
    "message": f"The model `{TYPO}` does not exist or you do not have access to it.",
}
# The job's preflight (the agent's text and tool probes, the judge's) gets a working provider; the
# daemon's own probes after it get what follows in a `preflight` list: a fault that arose mid-job.
JOB_PREFLIGHT = {"working": True, "repeat": 3}


def cli(fake, out: Path, *extra: str, key: bool = False, model: str = MODEL) -> subprocess.CompletedProcess:
    """`gaia2-runner run-dataset` with the built-in agent on the scripted provider (judge too)."""
    base = f"http://{HOST}:{fake.port}/v1"
    args = [
        "run-dataset",
        "--scenario",
        str(SCENARIO),
        *llm_on(base, model),
        "--output-dir",
        str(out),
        "--timeout",
        "120",
        "--agent-option",
        "retry_base_s=0.2",
        *(["--api-key-env", "FAULT_TEST_KEY"] if key else []),
        *extra,
    ]
    env = {**os.environ, "COLUMNS": "200", "FAULT_TEST_KEY": KEY}
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=800,
    )


def results(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(out.rglob("result.json"))]


def error_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("error:")]


def assert_stopped_on_fault(proc: subprocess.CompletedProcess, out: Path, words: str) -> list[dict]:
    explain = (proc.stdout[-3000:], proc.stderr[-3000:])
    assert proc.returncode == 2, explain
    [line] = error_lines(proc)
    assert words in line and "--retry" in line, line
    runs = results(out)
    assert runs and all(r["success"] is None and r["status"] == "error" for r in runs), [
        r["error"] for r in runs
    ]
    assert any((r.get("provider") or {}).get("fault") for r in runs)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped"]["kind"] == "configuration_fault" and summary["overall"]["successes"] == 0
    assert "STOPPED: configuration fault" in proc.stdout
    return runs


def test_unknown_model_stops_the_job_and_retry_after_fixing_reruns_it(images, fake, tmp_path) -> None:
    fake.set_script(
        {
            "chat": [{**UNKNOWN_MODEL, "repeat": 40}],
            "preflight": [JOB_PREFLIGHT, {**UNKNOWN_MODEL, "repeat": 40}],
        }
    )
    out = tmp_path / "out"
    proc = cli(fake, out, "--pass-at", "3", "--concurrency", "2", model=TYPO)
    runs = assert_stopped_on_fault(proc, out, f"does not know the model '{TYPO}'")
    assert len(runs) <= 2  # the third run never started
    runner_log = (out / "runner.log").read_text()
    assert "configuration fault" in runner_log and "FAIL" not in runner_log
    # The typo fixed: --retry accepts the new model (no verdict of the old one exists) and runs
    # every one of them, all judged.
    fake.set_script({"chat": [{**SOLVE, "repeat": 40}]})
    again = cli(fake, out, "--pass-at", "3", "--concurrency", "2", "--retry")
    assert again.returncode == 0, (again.stdout[-3000:], again.stderr[-3000:])
    assert [r["success"] for r in results(out)] == [True, True, True]


def test_a_refused_key_stops_the_job_and_never_leaks(images, fake, tmp_path) -> None:
    refused = {"status": 401, "message": "Incorrect API key provided", "repeat": 40}
    fake.set_script({"chat": [refused], "preflight": [JOB_PREFLIGHT, refused]})
    out = tmp_path / "out"
    proc = cli(fake, out, "--pass-at", "2", "--concurrency", "2", key=True)
    assert_stopped_on_fault(proc, out, "refused the configured API key")
    assert {r["headers"].get("authorization") for r in fake.llm_requests()} == {f"Bearer {KEY}"}
    assert KEY not in proc.stdout + proc.stderr
    for path in out.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


def test_a_429_storm_lowers_concurrency_which_recovers_and_nothing_fails(images, fake, tmp_path) -> None:
    # Each reply takes 4 s, so the runs after the storm outlast the throttle's quiet spell (30 s):
    # the limit is back up while runs still wait to start.
    slow = {"by_turn": [{**ADD, "delay_s": 4}, {**SEND, "delay_s": 4}], "repeat": 60}
    storm = {"status": 429, "retry_after": 1, "message": "Rate limit reached", "repeat": 4}
    fake.set_script(
        {"chat": [storm, slow], "preflight": [JOB_PREFLIGHT, storm]}
    )  # the key's limit: the probe meets it too
    out = tmp_path / "out"
    proc = cli(fake, out, "--pass-at", "6", "--concurrency", "2")
    explain = (proc.stdout[-3000:], proc.stderr[-3000:])
    assert proc.returncode == 0, explain
    assert [r["success"] for r in results(out)] == [True] * 6, explain
    log = (out / "runner.log").read_text()
    assert "concurrency lowered from 2 to 1 of 2" in log, log
    assert "concurrency raised to 2 of 2" in log, log
    assert log.index("lowered from 2 to 1") < log.index("raised to 2 of 2")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["lowest_concurrency"] == 1 and summary["concurrency"] == 2 and summary["stopped"] is None
    assert sum(r["provider"]["rate_limit"] for r in results(out)) == 4


def run(sandbox, out: Path, fake, timeout: float = 120, **env: str):
    agent = {
        "GAIA2_AGENT_PROVIDER": "openai-compat",
        "GAIA2_AGENT_MODEL": MODEL,
        "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}/v1",
        "GAIA2_AGENT_OPTIONS": '{"retry_base_s": 0.2}',
        **env,
    }
    return run_scenario(SCENARIO, AGENT_IMAGE, out, sandbox=sandbox, extra_env=agent, timeout=timeout)


def test_a_provider_that_never_answers_is_an_infrastructure_error_saying_so(
    sandbox, images, fake, tmp_path
) -> None:
    fake.set_script(
        {
            "chat": [{"text": "late", "delay_s": 120, "repeat": 10}],
            "preflight": [{"text": "late", "delay_s": 120, "repeat": 10}],
        }
    )  # the runner's own probe too
    result = run(sandbox, tmp_path, fake, timeout=30)  # one call with its retries fits in 22.5 s
    assert (result.status, result.success) == ("error", None), result.error
    assert "the provider never answered (" in result.error and "(seen by the model relay)" in result.error
    assert result.provider is not None and result.provider["ok"] == 0


def test_a_context_overflow_is_the_agents_failure_with_the_reason(sandbox, images, fake, tmp_path) -> None:
    overflow = {
        "status": 400,
        "message": "This model's maximum context length is 8192 tokens. However, your "
        "messages resulted in 9001 tokens.",
    }
    fake.set_script({"chat": [ADD, overflow]})
    result = run(sandbox, tmp_path, fake)
    assert result.success is False and result.status == "agent_exit", (
        result.status,
        result.error,
        result.note,
    )
    assert "no longer fits the model's context" in result.note and "seen by the model relay" in result.note
    assert result.provider["context_overflow"] == 1 and result.provider["fault"] is None


def test_past_the_token_budget_calls_are_refused_and_the_run_is_judged(
    sandbox, images, fake, tmp_path
) -> None:
    fake.set_script({"chat": [ADD, SEND]})
    result = run(sandbox, tmp_path, fake, GAIA2_TOKEN_BUDGET="50")  # the first answer alone uses more
    assert result.success is False and result.status == "timeout", (result.status, result.error, result.note)
    assert "token budget exhausted" in result.note and "of the 50 allowed" in result.note
    assert result.provider["refused_budget"] >= 1 and result.provider["budget_exhausted"] is True
    assert len(fake.llm_requests()) == 1  # the refused call never reached the provider
