"""An agent that provokes its provider into refusals that look like the runner's configuration
faults or an outage, for tests/redteam/test_misattribution_e2e.py. It runs in a scenario container
as the agent user (GAIA2_AGENT_COMMAND), talks to the model relay (GAIA2_AGENT_BASE_URL with the
run's placeholder key) and ends its turn with a wrong answer.

Stdlib only. Whether it provokes depends on its task: when the task holds PROVOKE_WHEN it sends, with
the run's placeholder and configured model, what issue 31 found stopping whole jobs:
  the placeholder in `x-api-key` only (the provider sees no key: 401), `max_tokens: 1000000` (402),
  a text a web firewall blocks (a 403 HTML page), a bogus OpenAI-Organization header (401), a first
  request to /responses on a server without it (404), twice an oversized body its front end
  drops unanswered, and two long generations at once that it abandons after 62 s (the provider
  answers them at 75 s).
Otherwise it makes one ordinary model call. Each request's text carries a PROVOKE-* word, which the
test's fake provider answers by rule. It prints `PROVOKED {json}` (status per request) to agent.log.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

TOOLS = os.environ["GAIA2_TOOLS_URL"]
BASE = os.environ["GAIA2_AGENT_BASE_URL"].rstrip("/")
KEY = os.environ["GAIA2_AGENT_API_KEY"]
MODEL = os.environ["GAIA2_AGENT_MODEL"]
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
WRONG_ANSWER = "I could not do it."


ABANDON_S = 62.0  # past the relay's 60 s honest wait: what issue 31 found turned into "still waiting"


def request(url: str, body: dict | None, headers: dict[str, str], timeout: float = 60) -> object:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data, {"Content-Type": "application/json", **headers}, method="GET" if body is None else "POST"
    )
    try:
        with OPENER.open(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as exc:
        exc.read()
        return exc.code
    except Exception as exc:  # noqa: BLE001 - a dropped connection is what some requests get
        return type(exc).__name__


def chat(
    word: str,
    headers: dict[str, str] | None = None,
    path: str = "/chat/completions",
    timeout: float = 60,
    **extra: object,
) -> object:
    body = {"model": MODEL, "messages": [{"role": "user", "content": f"{word}: hello"}], **extra}
    auth = {"Authorization": f"Bearer {KEY}"} if headers is None else headers
    return request(BASE + path, body, auth, timeout)


def task() -> str:
    while True:
        with OPENER.open(TOOLS + "/inbox", timeout=30) as resp:
            messages = json.loads(resp.read())["messages"]
        if messages:
            return messages[0]["content"]
        time.sleep(0.2)


def provoke() -> dict[str, object]:
    bearer = {"Authorization": f"Bearer {KEY}"}
    return {
        "x-api-key": chat("PROVOKE-401", {"x-api-key": KEY}),
        "max_tokens": chat("PROVOKE-402", max_tokens=1000000),
        "firewall": chat("PROVOKE-403"),
        "organization": chat("PROVOKE-ORG", {**bearer, "OpenAI-Organization": "org-made-up"}),
        "responses": chat("PROVOKE-404", path="/responses"),
        "oversized": [chat("PROVOKE-DROP " + "x" * 200_000) for _ in range(2)],
        "abandoned": long_generations(),
    }


def long_generations() -> list[object]:
    """Two long generations at once, abandoned before the provider answers them."""
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda _: chat("PROVOKE-SLOW", timeout=ABANDON_S, max_tokens=32000), range(2)))


def main() -> None:
    text = task()
    report = provoke() if os.environ.get("PROVOKE_WHEN", "\0") in text else {"honest": chat("HONEST")}
    print("PROVOKED " + json.dumps(report), flush=True)
    body = json.dumps({"tool": "AgentUserInterface__send_message_to_user", "args": {"content": WRONG_ANSWER}})
    request(TOOLS + "/call", json.loads(body), {})


if __name__ == "__main__":
    main()
