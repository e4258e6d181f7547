"""Whatever the agent sends, the run ends with a verdict and every executed call is on record
(issue 21, "A verdict for every behaviour").

The agent is tests/support/hostile_agent.py (GAIA2_AGENT_COMMAND in the oracle image), judged with a
scripted judge model that rejects every soft check (ARE then needs a request it can serialise).
Before the fix, a lone surrogate in tool arguments made the call answer 500, left it out of
events.jsonl, left are_trace.json.gz unwritten and ended the run `error` with no verdict.
"""

from __future__ import annotations

import gzip
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_support import oracle_dataset
from fake_llm.server import FakeLLM
from gaia2_contract.constants import JUDGED_STATUSES
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "scenarios"
HOST = "host.containers.internal"
AGENT = (Path(__file__).resolve().parents[1] / "support" / "hostile_agent.py").read_text()
COMMAND = f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(AGENT)}"
FFFD = "\ufffd"
REJECT = "- Reasoning:\n<reasoning>scripted</reasoning>\n<subtask>Check it</subtask>\n[[False]] [[Failure]]"
ALLOWED_STATUSES = {"200", "400", "404", "413"}  # never a 500, never a reset connection
FUZZ_SCENARIOS = ("demo_calendar_add_event", "demo_contacts_update_phone")


def judge_env(fake: FakeLLM) -> dict[str, str]:
    fake.set_script({"chat": [{"text": REJECT, "repeat": 1000}]})
    return {
        "GAIA2_JUDGE_PROVIDER": "openai-compat",
        "GAIA2_JUDGE_MODEL": "fake-judge",
        "GAIA2_JUDGE_BASE_URL": f"http://{HOST}:{fake.port}/v1",
        "GAIA2_JUDGE_API_KEY": "sk-judge",
    }


def report(run_dir: Path) -> dict:
    lines = [
        line
        for line in (run_dir / "agent.log").read_text(errors="replace").splitlines()
        if line.startswith("HOSTILE ")
    ]
    assert lines, (run_dir / "agent.log").read_text(errors="replace")[-3000:]
    return json.loads(lines[0].removeprefix("HOSTILE "))


def events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def are_trace(run_dir: Path) -> dict:
    with gzip.open(run_dir / "are_trace.json.gz", "rt", encoding="utf-8") as fh:
        return json.load(fh)


def test_lone_surrogates_in_arguments_and_answer_get_a_verdict(images, fake, tmp_path: Path) -> None:
    env = {"GAIA2_AGENT_COMMAND": COMMAND, "HOSTILE_MODE": "surrogate", **judge_env(fake)}
    result = run_scenario(
        DEMO / "demo_calendar_add_event.json", ORACLE_IMAGE, tmp_path, extra_env=env, timeout=180
    )
    run_dir = tmp_path / result.scenario_id
    assert (result.status, result.success) == ("completed", False), (result.error, result.failure_reasons)
    got = report(run_dir)
    assert got["call"][0] == 200 and got["call"][1]["ok"] is True, got["call"]
    # The agent-side /health (tool API, adapter without the token) names no scenario.
    assert got["health"] == {"tools": [200, {"status": "ok"}], "adapter": [200, {"status": "ok"}]}

    recorded = events(run_dir)
    calls = [e for e in recorded if e["kind"] == "tool_call"]
    assert [c["function"] for c in calls] == ["add_calendar_event", "send_message_to_user"]
    assert calls[0]["args"]["title"] == f"Dentist appointment {FFFD}"
    assert calls[0]["args"]["location"] == f"Smile Dental {FFFD}, 12 Rue Oberkampf, Paris"
    answer = f"Done {FFFD} with a lone surrogate {FFFD} in the answer"
    assert [e["content"] for e in recorded if e["kind"] == "agent_message"] == [answer]
    assert (run_dir / "agent_response.txt").read_text(encoding="utf-8") == answer
    assert result.agent_actions == 2

    trace = json.dumps(are_trace(run_dir), ensure_ascii=False)
    assert f"Dentist appointment {FFFD}" in trace and answer in trace
    # What the judge model was shown is what was recorded: U+FFFD, never a dropped character.
    prompts = [json.dumps(r["body"], ensure_ascii=False) for r in fake.llm_requests()]
    assert prompts and all("\\ud800" not in p for p in prompts)
    assert any(FFFD in p for p in prompts), prompts


def test_random_requests_from_the_agent_all_end_in_verdicts_with_every_call_recorded(
    images, fake, tmp_path, demo_dataset
):
    """Two scenarios in parallel, 400 seeded random requests each (seed: the task's crc32)."""
    demo_dataset(FUZZ_SCENARIOS)
    out = tmp_path / "out"
    judge = judge_env(fake)
    proc = subprocess.run(
        [
            *oracle_dataset(tmp_path / "data", out, concurrency=2),
            "--no-preflight",
            "--timeout",
            "300",
            "--judge-provider",
            judge["GAIA2_JUDGE_PROVIDER"],
            "--judge-model",
            judge["GAIA2_JUDGE_MODEL"],
            "--judge-base-url",
            judge["GAIA2_JUDGE_BASE_URL"],
            "--judge-api-key",
            judge["GAIA2_JUDGE_API_KEY"],
            "--env",
            f"GAIA2_AGENT_COMMAND={COMMAND}",
            "--env",
            "HOSTILE_MODE=fuzz",
            "--env",
            "HOSTILE_CALLS=400",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=560,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = {r["scenario_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert set(results) == set(FUZZ_SCENARIOS)
    for name, result in results.items():
        assert result["status"] in JUDGED_STATUSES and isinstance(result["success"], bool), result
        run_dir = out / "demo" / name
        got = report(run_dir)
        assert set(got["statuses"]) <= ALLOWED_STATUSES, got["statuses"]
        assert got["executed"] >= 50 and sum(got["statuses"].values()) >= 200, got
        calls = [e for e in events(run_dir) if e["kind"] == "tool_call"]
        assert len(calls) == got["executed"] + 1, (len(calls), got)  # + the final answer
        assert calls[-1]["function"] == "send_message_to_user", got["answer"]
        assert any(e.get("event_type") == "AGENT" for e in are_trace(run_dir)["completed_events"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["overall"]["infra_errors"] == 0
    export = subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", "export", str(out), "--format", "csv"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert export.returncode == 0, export.stdout + export.stderr
    assert len((out / "export.csv").read_text(encoding="utf-8").splitlines()) == 1 + len(FUZZ_SCENARIOS)
