"""Red team: giving up must never score better than failing (issue: "Numbers you can publish").

A scripted agent solves 1 of 3 demo scenarios and gives up on the other two: by exiting 3, by
exiting 0, by hanging past the time limit, or by claiming its provider is down. Every way, the
headline rate is 33.3 % and the run set is complete: the give-ups are judged, not excused.
"""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest

from dataset_support import demo_split, oracle_dataset

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = ["demo_calendar_add_event", "demo_messaging_send", "demo_cab_order"]
ANSWER = (
    "Done: 'Dentist appointment' is in your calendar on 2024-10-03 from 14:00 to 15:00 "
    "at Smile Dental, 12 Rue Oberkampf, Paris."
)

AGENT = f"""
import json, os, sys, time, urllib.error, urllib.request
base = os.environ["GAIA2_TOOLS_URL"]
def get(path):
    return json.load(urllib.request.urlopen(base + path))
def call(tool, **args):
    req = urllib.request.Request(base + "/call", json.dumps({{"tool": tool, "args": args}}).encode(),
                                 {{"Content-Type": "application/json"}})
    return json.load(urllib.request.urlopen(req))
for path in ("/oracle/plan", "/oracle/completed"):  # ground truth: never for a custom agent
    try:
        urllib.request.urlopen(base + path)
        print("oracle_reachable", path, flush=True)
    except urllib.error.HTTPError as exc:
        print("oracle_refused", path, exc.code, flush=True)
while not get("/inbox")["messages"]:
    time.sleep(0.2)
task = get("/inbox")["messages"][0]["content"]
if "Dentist appointment" in task:
    call("CalendarApp__add_calendar_event", title="Dentist appointment", start_datetime="2024-10-03 14:00:00",
         end_datetime="2024-10-03 15:00:00", location="Smile Dental, 12 Rue Oberkampf, Paris")
    call("AgentUserInterface__send_message_to_user", content={ANSWER!r})
    sys.exit(0)
mode = os.environ["GIVE_UP"]
if mode == "hang":
    time.sleep(3600)
if mode == "claim_provider_down":
    with open(os.path.join(os.environ["HOME"], "agent_error.txt"), "w") as fh:
        fh.write("provider error: HTTP 503 from https://api.example.com/v1/chat/completions")
sys.exit(0 if mode == "exit0" else 3)
"""
COMMAND = (
    f"python3 -c \"import base64; exec(base64.b64decode('{base64.b64encode(AGENT.encode()).decode()}'))\""
)


def run_give_up(tmp_path: Path, mode: str, *extra: str) -> dict:
    demo_split(tmp_path / "data", SCENARIOS)
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            *oracle_dataset(tmp_path / "data", out, concurrency=2),
            "--env",
            f"GAIA2_AGENT_COMMAND={COMMAND}",
            "--env",
            f"GIVE_UP={mode}",
            *extra,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=500,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr  # every run got a verdict
    summary = json.loads((out / "summary.json").read_text())
    results = {r["scenario_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    return {"summary": summary, "results": results, "stdout": proc.stdout, "out": out}


@pytest.mark.parametrize(
    "mode,status", [("exit3", "agent_exit"), ("exit0", "agent_exit"), ("claim_provider_down", "agent_exit")]
)
def test_an_agent_that_gives_up_scores_as_failing(images, tmp_path: Path, mode: str, status: str) -> None:
    got = run_give_up(tmp_path, mode)
    results = got["results"]
    assert results["demo_calendar_add_event"]["success"] is True
    for name in SCENARIOS[1:]:
        assert results[name]["success"] is False and results[name]["status"] == status, results[name]
        assert results[name]["error"] is None and "exited with code" in results[name]["note"]
    for name in SCENARIOS:
        log = (got["out"] / "demo" / name / "agent.log").read_text()
        assert "oracle_refused /oracle/plan 403" in log and "oracle_reachable" not in log, log
    overall = got["summary"]["overall"]
    assert round(100 * overall["success_rate"]["value"], 1) == 33.3
    assert got["summary"]["complete"] is True and overall["infra_errors"] == 0
    assert "33.3%" in got["stdout"]


def test_an_agent_still_working_at_the_time_limit_is_judged(images, tmp_path: Path) -> None:
    got = run_give_up(tmp_path, "hang", "--timeout", "20")
    results = got["results"]
    assert results["demo_calendar_add_event"]["success"] is True
    for name in SCENARIOS[1:]:
        assert (results[name]["status"], results[name]["success"]) == ("timeout", False), results[name]
    assert round(100 * got["summary"]["overall"]["success_rate"]["value"], 1) == 33.3
