"""A hostile agent for tests/redteam/test_agent_text_e2e.py: it runs in a scenario container as the agent
user (GAIA2_AGENT_COMMAND) and sends the daemon what no well-behaved agent would, then prints one
`HOSTILE {json}` line (collected in agent.log) saying what it sent and what came back, and ends its
turn with a final answer holding a lone surrogate.

Stdlib only (it runs with the image's python). Modes (HOSTILE_MODE):
  surrogate  one real tool call whose arguments hold lone surrogates, the tool API's and the adapter's
             /health without a token, then the answer
  fuzz       HOSTILE_CALLS random requests to /call, seeded (HOSTILE_SEED, else the task's crc32):
             lone surrogates, huge and deeply nested values, wrong types, made-up tools and argument
             names, bodies that are not JSON (or not UTF-8, or NaN), then a random answer (text with
             surrogates, huge, not text at all)
Report fields: `executed` (answers 200 that ran the tool, i.e. not "the scenario is over"),
`statuses` (HTTP status -> count, or the transport error's name), `health`, `answer` (its start).
"""

from __future__ import annotations

import json
import os
import random
import time
import urllib.error
import urllib.request
import zlib

TOOLS = os.environ["GAIA2_TOOLS_URL"]
ADAPTER = "http://127.0.0.1:8090"  # contract.ADAPTER_PORT: the agent shares the daemon's network
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
ANSWER = "Done \ud800 with a lone surrogate \udfff in the answer"
# Never called at random: the answer ends the turn (it comes last), waiting moves the clock.
SKIPPED = ("send_message_to_user", "wait_for_notification")
OVER = "the scenario is over"


def post(path: str, data: bytes, timeout: float = 120) -> tuple[object, object]:
    """(status code or transport error name, parsed body or None)."""
    request = urllib.request.Request(TOOLS + path, data, {"Content-Type": "application/json"}, method="POST")
    return _open(request, timeout)


def get(url: str, timeout: float = 30) -> tuple[object, object]:
    return _open(urllib.request.Request(url), timeout)


def _open(request: urllib.request.Request, timeout: float) -> tuple[object, object]:
    try:
        with OPENER.open(request, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw)
        except ValueError:
            return exc.code, None
    except Exception as exc:  # noqa: BLE001 - a reset connection is what the test looks for
        return type(exc).__name__, None


def call(tool: object, args: object) -> tuple[object, object]:
    return post("/call", json.dumps({"tool": tool, "args": args}).encode())


def first_task() -> str:
    while True:
        code, body = get(TOOLS + "/inbox")
        if code == 200 and body["messages"]:
            return body["messages"][0]["content"]
        time.sleep(0.2)


# ---- random values --------------------------------------------------------------------------
def text(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.3:
        return "".join(
            rng.choice(["a", " ", "\ud800", "\udfff", "é", "日", "\x00", "\n", "😀", '"', "\\"])
            for _ in range(rng.randint(0, 40))
        )
    if pick < 0.31:
        return "x\ud83d" * rng.randint(50_000, 300_000)  # huge, with surrogates
    if pick < 0.6:
        return rng.choice(["2024-10-03 14:00:00", "", "Dentist appointment", "+33 6 00 00 00 00", "a@b.c"])
    return f"word{rng.randint(0, 10**6)}"


def value(rng: random.Random) -> object:
    kind = rng.random()
    if kind < 0.06:  # deep: past the daemon's 20 levels about half the time
        nested: object = text(rng)[:20]
        for _ in range(rng.randint(2, 40)):
            nested = [nested] if rng.random() < 0.5 else {text(rng)[:10]: nested}
        return nested
    if kind < 0.5:
        return text(rng)
    return rng.choice(
        [
            rng.randint(-(10**30), 10**30),
            rng.random() * 1e300,
            True,
            False,
            None,
            [],
            {},
            [text(rng), 1],
            {"k": text(rng)},
            10**4000,
        ]
    )


def raw_body(rng: random.Random, tool: str) -> bytes:
    return rng.choice(
        [
            b"",
            b"not json",
            b"\xff\xfe\x00garbage",
            b'{"tool": "' + tool.encode() + b'", "args": {"x": NaN}}',
            b'{"tool": "' + tool.encode() + b'", "args": {"x": 1e999}}',
            b"[" * 5000 + b"]" * 5000,
            b'{"tool": ' + b"9" * 5000 + b"}",
            b"[]",
            b'{"tool": 5}',
            b'{"tool": "' + tool.encode() + b'", "args": []}',
            b'"\\ud800"',
            b'{"tool": "\\udc80", "args": {}}',
            b"{" * 3,
        ]
    )


def fuzz(report: dict, task: str) -> object:
    """The random requests; returns the random final answer (text or not, huge, with surrogates)."""
    rng = random.Random(int(os.environ.get("HOSTILE_SEED") or zlib.crc32(task.encode())))
    code, body = get(TOOLS + "/tools")
    tools = [t for t in body["tools"] if not any(s in t["name"] for s in SKIPPED)]
    for _ in range(int(os.environ.get("HOSTILE_CALLS", "300"))):
        tool = rng.choice(tools)
        names = [a["name"] for a in tool["args"]]
        pick = rng.random()
        if pick < 0.12:
            code, body = post("/call", raw_body(rng, tool["name"]))
        elif pick < 0.22:
            code, body = call(
                rng.choice(
                    [
                        "Nope__nothing",
                        "",
                        "CalendarApp__",
                        tool["name"] + "\ud800",
                        tool["app"] + "__delete_everything",
                    ]
                ),
                {},
            )
        else:
            args = {n: value(rng) for n in names if rng.random() < 0.85}
            if pick < 0.32:
                args[rng.choice(["self", "bogus", "", "\ud800", "kwargs"])] = value(rng)
            code, body = call(tool["name"], args)
        count(report, code, body)
        if isinstance(body, dict) and OVER in str(body.get("error", "")):
            break
    return rng.choice([ANSWER, text(rng), "\ud800" * 100_000, {"content": ANSWER}, 12, None, "=1+1"])


def count(report: dict, code: object, body: object) -> None:
    report["statuses"][str(code)] = report["statuses"].get(str(code), 0) + 1
    if code == 200 and isinstance(body, dict) and OVER not in str(body.get("error", "")):
        report["executed"] += 1


def main() -> None:
    mode = os.environ.get("HOSTILE_MODE", "surrogate")
    task = first_task()
    report: dict = {"mode": mode, "executed": 0, "statuses": {}, "task": task[:80]}
    report["health"] = {"tools": get(TOOLS + "/health"), "adapter": get(ADAPTER + "/health")}
    answer: object = ANSWER
    if mode == "fuzz":
        answer = fuzz(report, task)
    else:
        code, body = call(
            "CalendarApp__add_calendar_event",
            {
                "title": "Dentist appointment \ud800",
                "start_datetime": "2024-10-03 14:00:00",
                "end_datetime": "2024-10-03 15:00:00",
                "location": "Smile Dental \udfff, 12 Rue Oberkampf, Paris",
            },
        )
        count(report, code, body)
        report["call"] = [code, body]
    report["answer"] = json.dumps(answer)[:60]
    print("HOSTILE " + json.dumps(report), flush=True)  # before the answer: the run ends with it
    code, body = call("AgentUserInterface__send_message_to_user", {"content": answer})
    print("ANSWERED " + json.dumps([code, body]), flush=True)


if __name__ == "__main__":
    main()
