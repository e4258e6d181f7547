"""An agent cannot make its own failure look like the provider's (issue 31): one hostile agent
beside honest ones in one job, in real containers, against a strict scripted provider on the host.

The hostile run (tests/support/provoking_agent.py) provokes, with the run's placeholder and
configured model, every refusal that used to stop the whole job or turn its run into an
infrastructure error: a 401 for a key in the wrong header, a 402 for a huge max_tokens, a
firewall's 403 page, a 401 for a bogus organization, a 404 to a first request on a path the server
lacks, two oversized bodies dropped unanswered, and two long generations abandoned after 62 s
(past the relay's 60 s honest wait: "still waiting"). The runner's own probe is answered each time,
so the run is judged (its note holds the provider's words), the honest runs are scored, the job is
neither stopped nor slowed, and --retry has nothing to rerun.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_support import llm_on
from gaia2_contract.constants import JUDGED_STATUSES

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
HOST = "host.containers.internal"
AGENT = (REPO / "tests" / "support" / "provoking_agent.py").read_text()
COMMAND = f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(AGENT)}"
SCENARIOS = ("demo_calendar_add_event", "demo_contacts_update_phone", "demo_messaging_send")
HOSTILE = "demo_calendar_add_event"  # its task names the 'Dentist appointment'
REJECT = "- Reasoning:\n<reasoning>scripted</reasoning>\n<subtask>Check it</subtask>\n[[False]] [[Failure]]"
RULES = [
    {"contains": "PROVOKE-401", "status": 401, "message": "Missing bearer or basic authentication in header"},
    {
        "contains": "PROVOKE-402",
        "status": 402,
        "message": "This request requires more credits, or fewer "
        "max_tokens. You requested up to 1000000 tokens",
    },
    {
        "contains": "PROVOKE-403",
        "status": 403,
        "html": "<html><body><h1>403 Forbidden</h1>Request blocked by the web application firewall</body></html>",
    },
    {"contains": "PROVOKE-ORG", "status": 401, "message": "No such organization: org-made-up"},
    {"contains": "PROVOKE-404", "status": 404, "message": "Not Found"},
    {"contains": "PROVOKE-DROP", "drop": True},
    {"contains": "PROVOKE-SLOW", "text": "a very long story", "delay_s": 75},
]


def job(fake, out: Path, *extra: str) -> subprocess.CompletedProcess:
    base = f"http://{HOST}:{fake.port}/v1"
    args = [
        "run-dataset",
        "--dataset-root",
        str(out.parent / "data"),
        *llm_on(base),
        "--output-dir",
        str(out),
        "--concurrency",
        "3",
        "--timeout",
        "180",
        "--env",
        f"GAIA2_AGENT_COMMAND={COMMAND}",
        "--env",
        "PROVOKE_WHEN=Dentist",
        *extra,
    ]
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=560,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )


def test_a_hostile_agent_cannot_stop_the_job_slow_it_or_buy_a_rerun(
    images, fake, tmp_path, demo_dataset
) -> None:
    demo_dataset(SCENARIOS)
    fake.set_script({"chat": [{"text": REJECT, "repeat": 1000}], "rules": RULES})
    out = tmp_path / "out"
    proc = job(fake, out)
    explain = (proc.stdout[-3000:], proc.stderr[-3000:])
    assert proc.returncode == 0, explain
    results = {r["scenario_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert set(results) == set(SCENARIOS), explain
    for name, result in results.items():  # every run judged: a verdict, no infrastructure error
        assert result["status"] in JUDGED_STATUSES and isinstance(result["success"], bool), (name, result)
    hostile = json.loads((out / "demo" / HOSTILE / "result.json").read_text())
    log = (out / "demo" / HOSTILE / "agent.log").read_text()
    [provoked] = [
        json.loads(line.removeprefix("PROVOKED "))
        for line in log.splitlines()
        if line.startswith("PROVOKED ")
    ]
    assert [provoked[k] for k in ("x-api-key", "max_tokens", "firewall", "organization", "responses")] == [
        401,
        402,
        403,
        401,
        404,
    ], provoked
    assert provoked["oversized"] == [502, 502], provoked  # the relay: "cannot reach the provider"
    assert all(not isinstance(got, int) for got in provoked["abandoned"]), provoked  # it gave up waiting
    assert hostile["success"] is False and hostile["provider"]["fault"] is None, hostile
    assert "counts as the agent's" in hostile["note"] and "HTTP 40" in hostile["note"], hostile["note"]
    assert "still waiting" in hostile["note"], hostile["note"]  # the long generations were its choice
    assert hostile["provider"]["confirmed_unavailable"] == 0 and 1 <= hostile["provider"]["probes"] <= 4, (
        hostile["provider"]
    )
    summary = json.loads((out / "summary.json").read_text())
    assert (
        summary["stopped"] is None and summary["complete"] is True and summary["overall"]["infra_errors"] == 0
    )
    assert summary["lowest_concurrency"] == summary["concurrency"] == 3, summary  # nobody was slowed down
    assert "configuration fault" not in (out / "runner.log").read_text()
    # --retry reruns what ended without a verdict: nothing here.
    finished = {name: r["finished_at"] for name, r in results.items()}
    again = job(fake, out, "--retry")
    assert again.returncode == 0, (again.stdout[-3000:], again.stderr[-3000:])
    rerun = {r["scenario_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert {name: r["finished_at"] for name, r in rerun.items()} == finished
