"""Text the agent sends can always be written (containers/gaia2_container/jsonable.py) and the tool
API answers every request with a status, over real HTTP without a container; the agent-side
/health names no scenario; CSV cells never run as formulas."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from gaia2_container.daemon.http.routes import TOOL_ROUTES, DaemonState  # noqa: E402
from gaia2_container.daemon.http.server import serve  # noqa: E402
from gaia2_container.daemon.relay.trace import Capture, RelayTrace  # noqa: E402
from gaia2_container.daemon.session.recorder import EventRecorder  # noqa: E402
from gaia2_container.daemon.session.status import StatusBoard  # noqa: E402
from gaia2_container.jsonable import (  # noqa: E402
    MAX_DEPTH,
    REPLACEMENT,
    BadAgentJson,
    encodable,
    json_text,
    parse_agent_json,
    to_jsonable,
)
from gaia2_runner.analysis.export import FORMULA_STARTS, csv_cell, export_rows  # noqa: E402

FFFD = REPLACEMENT


def nested(depth: int) -> object:
    value: object = "core"
    for _ in range(depth):
        value = [value]
    return value


# ---- jsonable ---------------------------------------------------------------------------------
def test_lone_surrogates_become_u_fffd_and_real_pairs_stay() -> None:
    parsed = parse_agent_json(b'{"k\\ud800": ["a\\udfffb", "\\ud83d\\ude00", "caf\\u00e9"]}')
    assert parsed == {f"k{FFFD}": [f"a{FFFD}b", "\U0001f600", "café"]}
    assert encodable("plain") == "plain" and encodable("\udc80x\ud800") == f"{FFFD}x{FFFD}"
    json_text(parsed).encode("utf-8")  # writable


@pytest.mark.parametrize(
    "raw,why",
    [
        (b'{"x": NaN}', "NaN"),
        (b'{"x": -Infinity}', "Infinity"),
        (b"[1e999]", "too large"),
        (b"\xff\xfe{", "not UTF-8"),
        (b"{", "not JSON"),
        (b"[" * 100_000, "nested deeper"),
        (json.dumps(nested(MAX_DEPTH + 1)).encode(), "nested deeper"),
        (b"9" * 5000, "not usable"),
    ],
)
def test_bodies_that_are_not_strict_json_are_refused_with_a_reason(raw: bytes, why: str) -> None:
    with pytest.raises(BadAgentJson, match=why):
        parse_agent_json(raw)


def test_the_deepest_accepted_body_is_written_as_it_came() -> None:
    value = nested(MAX_DEPTH)
    assert parse_agent_json(json.dumps(value).encode()) == value
    assert json.loads(json_text({"args": value})) == {"args": value}


def test_to_jsonable_makes_anything_writable() -> None:
    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("no")

    loop: list = []
    loop.append(loop)
    out = json.loads(
        json_text(
            {
                "nan": float("nan"),
                "inf": float("-inf"),
                "\ud800": "x\udfff",
                "obj": Broken(),
                "bytes": b"\xff",
                "loop": loop,
                5: {1, 2},
            }
        )
    )
    assert out["nan"] == "nan" and out["inf"] == "-inf" and out[FFFD] == f"x{FFFD}"
    assert out["obj"] == "<unprintable Broken: RuntimeError>" and out["bytes"] == FFFD
    assert out["5"] == [1, 2] and to_jsonable(True) is True


# ---- writers ----------------------------------------------------------------------------------
def test_event_recorder_writes_lone_surrogates_as_u_fffd(tmp_path: Path) -> None:
    recorder = EventRecorder(tmp_path / "events.jsonl")
    recorder.record("tool_call", 1.0, args={"title": "a\ud800", "\udc80": float("nan")}, result="ok")
    recorder.close()
    line = json.loads((tmp_path / "events.jsonl").read_text(encoding="utf-8"))
    assert line["args"] == {"title": f"a{FFFD}", FFFD: "nan"}


def test_relay_trace_records_a_request_with_lone_surrogates(tmp_path: Path) -> None:
    trace = RelayTrace(tmp_path / "trace.jsonl", "openai")
    request, response = Capture(), Capture()
    request.add(b'{"model": "m", "messages": [{"role": "user", "content": "hi \\ud800"}]}')
    response.add(b"{}")
    trace.record(
        url="http://x/v1/chat/completions",
        path="/v1/chat/completions",
        started=0.0,
        latency_ms=1.0,
        http_status=200,
        request=request,
        response=response,
    )
    assert trace.close() == 1
    entry = json.loads((tmp_path / "trace.jsonl").read_text(encoding="utf-8"))
    assert f"hi {FFFD}" in json.dumps(entry, ensure_ascii=False)


# ---- the tool API over real HTTP ----------------------------------------------------------------
class StandInSession:
    """What /call touches of the ARE session: it records the call as Session.call_tool does."""

    def __init__(self, recorder: EventRecorder) -> None:
        self.recorder, self.calls = recorder, []

    def call_tool(self, name: str, args: dict, ends_turn: bool = False) -> dict:
        if name != "App__echo":
            raise KeyError(name)
        self.calls.append(args)
        self.recorder.record("tool_call", 0.0, tool=name, args=args, ok=True, result=args)
        return {"ok": True, "result": to_jsonable(args), "text": str(args)}


@pytest.fixture
def tools(tmp_path: Path):
    state = DaemonState(
        runtime="agent",
        status=StatusBoard(tmp_path / "status.json", None, "agent"),
        recorder=EventRecorder(tmp_path / "events.jsonl"),
    )
    state.session = StandInSession(state.recorder)
    state.loaded = SimpleNamespace(scenario_id="secret_scenario_id")
    server = serve("127.0.0.1", 0, TOOL_ROUTES, state, "tools")
    with httpx.Client(
        base_url=f"http://127.0.0.1:{server.server_address[1]}", trust_env=False, timeout=10
    ) as http:
        yield SimpleNamespace(state=state, http=http, events=tmp_path / "events.jsonl")
    server.shutdown()
    server.server_close()


def post(http: httpx.Client, raw: bytes) -> httpx.Response:
    return http.post("/call", content=raw, headers={"Content-Type": "application/json"})


def test_a_call_with_lone_surrogates_runs_is_recorded_and_answered(tools) -> None:
    resp = post(tools.http, b'{"tool": "App__echo", "args": {"t\\ud800": "x\\udfff"}}')
    assert resp.status_code == 200 and resp.json()["result"] == {f"t{FFFD}": f"x{FFFD}"}
    assert tools.state.session.calls == [{f"t{FFFD}": f"x{FFFD}"}]  # what ran is what is recorded
    tools.state.recorder.close()
    line = json.loads(tools.events.read_text(encoding="utf-8"))
    assert line["args"] == {f"t{FFFD}": f"x{FFFD}"}


def test_every_bad_body_gets_a_400_and_the_api_goes_on(tools) -> None:
    bad = [
        b"not json",
        b"\xff\xfe",
        b'{"tool": "App__echo", "args": {"x": NaN}}',
        b"[" * 50_000,
        b'{"tool": ' + b"9" * 5000 + b"}",
        json.dumps({"tool": "App__echo", "args": nested(MAX_DEPTH)}).encode(),
        b"[]",
        b'{"tool": 5}',
        b'{"tool": "App__echo", "args": [1]}',
    ]
    for raw in bad:
        resp = post(tools.http, raw)
        assert resp.status_code == 400 and resp.json()["error"], raw[:40]
    assert post(tools.http, b'{"tool": "Nope__x\\ud800"}').status_code == 404
    assert tools.state.session.calls == []
    ok = post(tools.http, json.dumps({"tool": "App__echo", "args": {"v": nested(MAX_DEPTH - 2)}}).encode())
    assert ok.status_code == 200 and tools.state.session.calls == [{"v": nested(MAX_DEPTH - 2)}]


def test_agent_side_health_names_no_scenario(tools) -> None:
    tools.state.ready.set()
    for headers in ({}, {"Authorization": "Bearer anything"}):
        resp = tools.http.get("/health", headers=headers)
        assert (resp.status_code, resp.json()) == (200, {"status": "ok"})


# ---- CSV export --------------------------------------------------------------------------------
@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_csv_cells_that_start_a_formula_are_text(start: str) -> None:
    assert csv_cell(f"{start}1+1") == f"'{start}1+1"


def test_csv_cells_that_are_numbers_or_plain_text_stay() -> None:
    assert [csv_cell(v) for v in (-1.5, 0, None, "ok =1", "", True)] == [-1.5, 0, "", "ok =1", "", True]
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}


def test_csv_export_neutralises_an_agent_controlled_reason(tmp_path: Path) -> None:
    from viewer_synth import run_tree

    root = run_tree(tmp_path / "a", {"s1": "fail"})
    result_path = root / "search" / "s1" / "result.json"
    result = json.loads(result_path.read_text())
    result["failure_reasons"] = ['=HYPERLINK("http://evil","x") \ud800']
    result_path.write_text(json.dumps(result))
    path, _ = export_rows(root, "csv")
    row = next(csv.DictReader(path.open(encoding="utf-8")))
    assert row["reason"].startswith("'=HYPERLINK("), row["reason"]
    assert "\\ud800" in row["reason"]  # a lone surrogate from a file is escaped, never a crash
    jsonl, _ = export_rows(root, "jsonl")
    assert json.loads(jsonl.read_text(encoding="utf-8"))["reason"].startswith("=HYPERLINK(")
