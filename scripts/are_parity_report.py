"""What scripts/are_parity.py says about two recorded conversations of ARE's default agent.

Per scenario: whether the first model request of both sides is byte-identical (else a unified diff
of the two JSON bodies, canonicalised), how many request/answer pairs are identical before the
conversations diverge, the cause of the divergence where it can be named (the first token that
differs, and in which part of which message: a tool output, the task, a notification...), and both
verdicts. What is canonicalised, and why that is honest, is said in NOTES (printed with the table).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from are_parity_proxy import Exchange

WIDTH = 80
CHAT_CALL = "/chat/completions"  # model calls; any other path (a model list) is no part of the conversation
ANSWER_IGNORED = ("id", "created", "usage", "timings", "system_fingerprint")  # differ on every call
NOTES = (
    "Requests compare as JSON, key order and whitespace canonicalised (the first\n"
    "one also byte for byte). Answers compare by what the agent reads: the status\n"
    "and the choices (a stream's text joined), without the per-call id, created,\n"
    "usage, timings and system_fingerprint. same: identical request/answer pairs\n"
    "before the conversations diverge; calls: model calls of are-benchmark/runner\n"
    "(a request re-sent unchanged, a client's retry, counts once, with its last\n"
    "answer); ERROR: no verdict; -: no result."
)
TOKEN = re.compile(r"\w+|[^\w\s]")
# ARE's default agent's history sections (base_agent.py DEFAULT_STEP_2_MESSAGE), as the model reads them.
SECTION = re.compile(
    r"\[OUTPUT OF STEP \d+\] (Observation|ERROR):|(User messages updates):|"
    r"(Environment notifications updates):|(\[TASK\]):"
)
SECTION_NAMES = {
    "Observation": "tool output",
    "ERROR": "tool error",
    "User messages updates": "user message",
    "Environment notifications updates": "notification",
    "[TASK]": "task",
}
ROLE_NAMES = {
    "system": "system prompt",
    "assistant": "model reply",
    "user": "user text",
    "tool": "tool output",
}
TOOL_SECTIONS = ("tool output", "tool error", "notification")
DIFF_LINES = 14
CONTEXT_CHARS = 20
TOKEN_CHARS = 34


@dataclass
class Side:
    """One side's run of one scenario: its verdict (PASS, FAIL, ERROR: none, -: no result), what
    else it said (a status, an exception type) and its model calls in order."""

    verdict: str
    note: str
    calls: list[Exchange]


@dataclass
class Comparison:
    scenario_id: str
    are: Side
    runner: Side
    first: str = "no call"  # identical | same JSON | differs | no call
    first_size: int = 0
    first_diff: list[str] = field(default_factory=list)
    same: int = 0
    cause: str = "no calls"
    detail: list[str] = field(default_factory=list)


def model_calls(exchanges: list[Exchange]) -> list[Exchange]:
    return [e for e in exchanges if e.method == "POST" and e.path.split("?", 1)[0].endswith(CHAT_CALL)]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def answer_of(exchange: Exchange) -> Any:
    """The answer as the agent reads it (NOTES)."""
    if exchange.error and exchange.status is None:
        return {"error": exchange.error}
    doc = _json(exchange.response)
    if isinstance(doc, dict):
        return {"status": exchange.status, **{k: v for k, v in doc.items() if k not in ANSWER_IGNORED}}
    text, finish = [], []
    for line in exchange.response.splitlines():  # a server-sent event stream
        event = _json(line[5:].strip()) if line.startswith("data:") else None
        for choice in event.get("choices") or [] if isinstance(event, dict) else []:
            delta = choice.get("delta") or {}
            text.append(str(delta.get("content") or "") + json.dumps(delta.get("tool_calls") or "")[2:-2])
            finish.append(choice.get("finish_reason"))
    return {"status": exchange.status, "stream": "".join(text), "finish": [f for f in finish if f]}


def answer_text(exchange: Exchange) -> str:
    answer = answer_of(exchange)
    if "stream" in answer:
        return answer["stream"]
    choices = answer.get("choices") or [{}]
    message = choices[0].get("message") or {} if isinstance(choices[0], dict) else {}
    return str(message.get("content") or "") + (
        json.dumps(message["tool_calls"]) if message.get("tool_calls") else ""
    )


def first_token_difference(a: str, b: str) -> tuple[int, str, int, str] | None:
    """(position, token) in each text of the first token that differs; None when the tokens agree."""
    left, right = TOKEN.finditer(a), TOKEN.finditer(b)
    while True:
        x, y = next(left, None), next(right, None)
        if x is None and y is None:
            return None
        if x is None or y is None or x.group() != y.group():
            return (
                x.start() if x else len(a),
                x.group() if x else "(end)",
                y.start() if y else len(b),
                y.group() if y else "(end)",
            )


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else message
    return content if isinstance(content, str) else json.dumps(content, sort_keys=True, ensure_ascii=False)


def _section(text: str, position: int, role: str) -> str:
    found = [m for m in SECTION.finditer(text, 0, position)]
    if not found:
        return ROLE_NAMES.get(role, role or "message")
    return SECTION_NAMES[next(g for g in found[-1].groups() if g)]


def _is_id(token: str) -> bool:
    return len(token) >= 8 and (
        re.fullmatch(r"[0-9a-f]+", token) is not None
        or (re.search(r"\d", token) is not None and re.search(r"[A-Za-z]", token) is not None)
    )


def _classify(section: str, a: str, b: str) -> str:
    if section in TOOL_SECTIONS and _is_id(a) and _is_id(b):
        return "random id"
    if section in TOOL_SECTIONS and a.isdigit() and b.isdigit():
        return "number"
    return section


def _show(text: str, position: int, token: str) -> str:
    before = text[max(0, position - CONTEXT_CHARS) : position].replace("\n", "\\n")[-CONTEXT_CHARS:]
    token = token if len(token) <= TOKEN_CHARS else token[: TOKEN_CHARS - 1] + "…"
    return f"…{before}«{token}»"


def _token_lines(head: str, a: str, b: str, found: tuple[int, str, int, str] | None) -> list[str]:
    """`head`, then where the first differing token lies on both sides."""
    if found is None:
        return [f"{head}: the same tokens, other spacing or fields"]
    return [
        f"{head}, first differing token:",
        f"  are-benchmark {_show(a, found[0], found[1])}",
        f"  runner        {_show(b, found[2], found[3])}",
    ]


def request_divergence(number: int, are_body: str, runner_body: str) -> tuple[str, list[str]]:
    """(cause, lines) for two requests that differ as JSON."""
    a, b = _json(are_body), _json(runner_body)
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return "request", [f"request {number}: a body is not a JSON object"]
    ma, mb = a.get("messages") or [], b.get("messages") or []
    for index, (x, y) in enumerate(zip(ma, mb), start=1):
        if x == y:
            continue
        role = x.get("role", "") if isinstance(x, dict) else ""
        tx, ty = _text(x), _text(y)
        found = first_token_difference(tx, ty)
        if found is None:
            return "message", _token_lines(f"request {number}, message {index} ({role})", tx, ty, None)
        section = _section(tx, found[0], role)
        return (
            _classify(section, found[1], found[3]),
            _token_lines(f"request {number}, message {index} ({role}, {section})", tx, ty, found),
        )
    if len(ma) != len(mb):
        return "messages", [f"request {number}: are-benchmark sent {len(ma)} messages, the runner {len(mb)}"]
    keys = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    return "request", [f"request {number}: fields differ: {', '.join(keys)}"]


def json_lines(value: Any, path: str = "") -> list[str]:
    """A JSON value as one line per leaf, keys sorted, strings split at their newlines: a diff of
    two requests then shows the lines of a prompt that differ, not one line of 10,000 characters."""
    if isinstance(value, dict) and value:
        return [
            line for key in sorted(value) for line in json_lines(value[key], f"{path}.{key}" if path else key)
        ]
    if isinstance(value, list) and value:
        return [line for i, item in enumerate(value) for line in json_lines(item, f"{path}[{i}]")]
    if isinstance(value, str) and "\n" in value:
        return [f"{path}| {piece}" for piece in value.split("\n")]
    return [f"{path}: {json.dumps(value, ensure_ascii=False)}"]


def json_diff(a: str, b: str, limit: int = DIFF_LINES) -> list[str]:
    lines = list(
        difflib.unified_diff(
            json_lines(_json(a)), json_lines(_json(b)), "are-benchmark", "runner", n=1, lineterm=""
        )
    )
    shown = [line if len(line) <= WIDTH - 2 else line[: WIDTH - 3] + "…" for line in lines[:limit]]
    return shown + ([f"… {len(lines) - limit} more diff lines"] if len(lines) > limit else [])


def conversation(calls: list[Exchange]) -> tuple[list[Exchange], int]:
    """The calls with each request sent again unchanged counted once, with its last answer (the one
    the agent read), and how many such re-sends there were. A conversation grows with every answer,
    so an unchanged request is a client's retry (ARE's LiteLLM retries an interrupted read)."""
    kept: list[Exchange] = []
    for call in calls:
        if kept and _json(kept[-1].request) == _json(call.request):
            kept[-1] = call
        else:
            kept.append(call)
    return kept, len(calls) - len(kept)


def compare(scenario_id: str, are: Side, runner: Side) -> Comparison:
    result = Comparison(scenario_id, are, runner)
    (a, are_resent), (r, runner_resent) = conversation(are.calls), conversation(runner.calls)
    are.calls, runner.calls = a, r
    if are_resent or runner_resent:
        result.detail.append(
            f"re-sent unchanged (client retries): are-benchmark {are_resent}, runner {runner_resent}"
        )
    if not a or not r:
        result.detail.append(f"model calls: are-benchmark {len(a)}, runner {len(r)}")
        return result
    result.first_size = len(a[0].request_bytes)
    if a[0].request_bytes == r[0].request_bytes:
        result.first = "identical"
    elif _json(a[0].request) == _json(r[0].request):
        result.first = "same JSON"
    else:
        result.first, result.first_diff = "differs", json_diff(a[0].request, r[0].request)
    for number, (x, y) in enumerate(zip(a, r), start=1):
        if _json(x.request) != _json(y.request):
            result.cause, lines = request_divergence(number, x.request, y.request)
            result.detail += lines
            return result
        if x.status is None or y.status is None:  # no answer reached the proxy: that side's run ended there
            result.cause = (
                "both ended"
                if x.status is None and y.status is None
                else "ARE ended"
                if x.status is None
                else "runner ended"
            )
            result.detail += [
                f"request {number}: {name} got no answer ({call.error})"
                for name, call in (("are-benchmark", x), ("the runner", y))
                if call.status is None
            ]
            return result
        if answer_of(x) != answer_of(y):
            ta, tb = answer_text(x), answer_text(y)
            result.cause = "model reply"
            result.detail += _token_lines(
                f"the server answered request {number} differently", ta, tb, first_token_difference(ta, tb)
            )
            return result
        result.same += 1
    if len(a) == len(r):
        result.cause = "none"
    else:
        shorter, longer = (
            ("are-benchmark", "the runner") if len(a) < len(r) else ("the runner", "are-benchmark")
        )
        result.cause = "ARE ended" if len(a) < len(r) else "runner ended"
        result.detail.append(
            f"{shorter} made no call after request {result.same}; {longer} made {max(len(a), len(r))}"
        )
    return result


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render(comparisons: list[Comparison]) -> str:
    """The table (80 columns), then what each scenario's row does not say, then NOTES."""
    width = min(max([len(c.scenario_id) for c in comparisons] + [8]), 26)
    rows = [
        f"{'scenario':<{width}}  {'first req':<9}  {'same':>4}  {'calls':>5}  {'cause':<12}  {'ARE':<5}  runner"
    ]
    for c in comparisons:
        calls = f"{len(c.are.calls)}/{len(c.runner.calls)}"
        rows.append(
            f"{_cut(c.scenario_id, width):<{width}}  {c.first:<9}  {c.same:>4}  {calls:>5}  "
            f"{_cut(c.cause, 12):<12}  {c.are.verdict:<5}  {c.runner.verdict}"
        )
    for c in comparisons:
        rows += ["", f"{c.scenario_id}:"]
        if c.first != "no call":
            rows.append(
                f"  first request: {c.first}, {c.first_size:,} bytes"
                + (" (after canonicalising)" if c.first == "same JSON" else "")
            )
        rows += [f"  {line}" for line in c.first_diff]
        rows += [f"  {_cut(line, WIDTH - 2)}" for line in c.detail]
        rows.append(
            _cut(
                f"  verdicts: are-benchmark {c.are.verdict} ({c.are.note}), "
                f"runner {c.runner.verdict} ({c.runner.note})",
                WIDTH,
            )
        )
    agree = sum(c.are.verdict == c.runner.verdict for c in comparisons)
    rows += [
        "",
        f"{agree}/{len(comparisons)} verdicts agree; first requests identical: "
        f"{sum(c.first == 'identical' for c in comparisons)}/{len(comparisons)}",
        NOTES,
    ]
    return "\n".join(rows)
