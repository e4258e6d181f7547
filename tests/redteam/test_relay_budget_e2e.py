"""The relay's token budget and pinned model in a real container (issue 31): a hostile agent
(GAIA2_AGENT_COMMAND, uid 1000) streams without asking for usage, then sends twenty calls at once
under --max-tokens 1000, and asks for a dearer model than the run's. Before the fix the streams
counted 0 tokens, all twenty were answered ("used 10000 tokens of the 1000 allowed") and o1-pro
was forwarded. Now the run ends with a verdict, its account stays within the budget plus one
call's reservation, and the other model never reached the provider."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(400)]

HOST = "host.containers.internal"
SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
BUDGET = 1000
MAX_TOKENS = 50
USAGE = {"input": 30, "output": MAX_TOKENS}  # what the provider reports (and charges) per call

AGENT = r"""
import json, os, threading, urllib.request, urllib.error
BASE = os.environ["GAIA2_AGENT_BASE_URL"]
HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer " + os.environ["GAIA2_AGENT_API_KEY"]}
def call(body):
    req = urllib.request.Request(BASE + "/v1/chat/completions", json.dumps(body).encode(), HEADERS)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()  # the whole stream (one cut short is charged its reservation)
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
def chat(model="qwen", **extra):
    return {"model": model, "stream": True, "messages": [{"role": "user", "content": "book it"}], **extra}
report = {"other_model": call(chat("o1-pro")), "streams": [call(chat()) for _ in range(10)]}
print("HOSTILE " + json.dumps(report), flush=True)  # the first refusal past the budget ends the run
threads = [threading.Thread(target=call, args=(chat(max_tokens=MAX_TOKENS),)) for _ in range(20)]
for t in threads: t.start()
for t in threads: t.join()
""".replace("MAX_TOKENS", str(MAX_TOKENS))


def test_a_hostile_agent_cannot_spend_past_the_budget_nor_change_the_model(
    sandbox, images, fake, tmp_path: Path
) -> None:
    fake.set_script(
        {
            "chat": [
                {"text": "ok", "usage": USAGE, "repeat": 10},
                {"text": "ok", "usage": USAGE, "delay_s": 1, "repeat": 20},
            ]
        }
    )
    env = {
        "GAIA2_AGENT_COMMAND": f"python3 -c {shlex.quote(AGENT)}",
        "GAIA2_AGENT_PROVIDER": "openai",
        "GAIA2_AGENT_MODEL": "qwen",
        "GAIA2_AGENT_BASE_URL": f"http://{HOST}:{fake.port}",
        "GAIA2_AGENT_API_KEY": "sk-budget-e2e",
        "GAIA2_TOKEN_BUDGET": str(BUDGET),
    }
    result = run_scenario(
        SCENARIO, ORACLE_IMAGE, tmp_path / "out", sandbox=sandbox, extra_env=env, timeout=240
    )
    log = (tmp_path / "out" / result.scenario_id / "agent.log").read_text()
    lines = [line for line in log.splitlines() if line.startswith("HOSTILE ")]
    assert lines, log[-3000:]
    report = json.loads(lines[0].removeprefix("HOSTILE "))
    # A verdict: judged on what the agent did, as at the time limit.
    assert (result.status, result.success) == ("timeout", False), (
        result.status,
        result.error,
        result.note,
        log[-2000:],
    )
    assert "token budget exhausted" in (result.note or ""), result.note
    assert report["other_model"] == 400 and report["streams"] == [200] * 10, (report["streams"], log[-3000:])
    sent = fake.llm_requests()
    assert all(r["body"]["model"] == "qwen" for r in sent)  # o1-pro never reached the provider
    assert all(r["body"]["stream_options"] == {"include_usage": True} for r in sent)
    answered = len(sent) - 10
    assert 0 < answered < 20, len(sent)
    account = result.provider
    assert account["tokens"]["output"] >= 10 * MAX_TOKENS, account  # the streams' usage counted
    # What the provider charged stays within the budget and one call's reservation (calls still in
    # flight when the run ended are in it, if not in the run's account). Before: 30 calls, 2400.
    charged = len(sent) * (USAGE["input"] + USAGE["output"])
    reservation = max(len(json.dumps(r["body"], separators=(",", ":"))) for r in sent) // 4 + MAX_TOKENS
    assert charged <= BUDGET + reservation, (charged, account)
    assert account["refused_model"] == 1 and 1 <= account["refused_budget"] <= 20 - answered, account
