"""A seeded catalogue of hostile and broken artifacts for the viewer's fuzz test.

Each Case writes its damage into a synthetic output tree (viewer_synth) beside good scenarios:
wrong JSON types for every field the viewer reads of every file, nesting, huge integers, NaN,
binary and non-UTF-8 text, caps exceeded, FIFOs, hostile directory and file names, symbolic links
out of the tree and a crafted `split`. `outside` is a sibling of the output directory whose
files carry MARK: no page may ever show it, and nothing there may change.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from viewer_synth import XSS, events, result_doc, trace_lines, write_jsonl, write_scenario

MARK = "OUTSIDE-MARKER-7f3a9c"
PASSWD = "root:x:0:0"
PH = "@@HOSTILE@@"

# Raw JSON text: json.dumps cannot write most of these (5,000 digits, 100,000 levels …).
POOL: list[tuple[str, str]] = [
    ("deep_100k", "[" * 100_000 + "]" * 100_000),
    ("deep_obj", '{"a":' * 3000 + "1" + "}" * 3000),
    ("nested_60", "[" * 60 + '"x"' + "]" * 60),
    ("int_5000", "9" * 5000),
    ("int_4000", "-" + "8" * 4000),
    ("int_40", "1" + "0" * 40),
    ("nan", "NaN"),
    ("inf", "Infinity"),
    ("ninf", "-Infinity"),
    ("f_1e999", "1e999"),
    ("f_max", "1.7e308"),
    ("true", "true"),
    ("false", "false"),
    ("null", "null"),
    ("zero", "0"),
    ("neg", "-7"),
    ("float", "3.5"),
    ("list", '[1, [2, {"a": null}]]'),
    ("dict", '{"a": {"b": [1, 2]}}'),
    ("empty_list", "[]"),
    ("empty_dict", "{}"),
    ("xss", json.dumps(XSS)),
    ("js", json.dumps("javascript:alert(1)")),
    ("attr", json.dumps('"onmouseover=alert(1) x="')),
    ("surrogates", '"\\ud800\\udfff\\udc80"'),
    ("nul", '"a\\u0000b"'),
    ("long", json.dumps("L" * 300_000)),
    ("str", '"text"'),
    ("empty_str", '""'),
]


@dataclass
class Case:
    name: str
    build: Callable[[Path, Path, Path, random.Random], None]  # (out, outside, slot dir, rng)
    scope: str = "scenario"  # "scenario": touches only its slot dir; "root": root files, not combinable
    caps: dict[str, int] = field(default_factory=dict)  # safe_io caps lowered for this case
    expect: str = ""  # text that must appear in some page (the visible warning)


def inject(doc: Any, path: tuple[Any, ...], snippet: str) -> str:
    """`doc` as JSON text with the value at `path` replaced by the raw `snippet`."""
    if not path:
        return snippet
    doc = copy.deepcopy(doc)
    target = doc
    for depth, key in enumerate(path):
        last = depth == len(path) - 1
        fresh: Any = PH if last else [] if isinstance(path[depth + 1], int) else {}
        if isinstance(key, int):
            while len(target) <= key:
                target.append(fresh)
        if last:
            target[key] = PH
        elif not isinstance(target[key] if isinstance(key, int) else target.get(key), (dict, list)):
            target[key] = fresh
        target = target[key]
    return json.dumps(doc).replace(json.dumps(PH), snippet)


def good(slot: Path, rng: random.Random, state: str = "pass") -> Path:
    return write_scenario(slot, slot.name, rng, state=state, n_calls=2, fmts=["chat"])


# ---- wrong values for every field of every file ---------------------------------------------------
RESULT_FIELDS = [
    (),
    ("scenario_id",),
    ("success",),
    ("status",),
    ("error",),
    ("failure_reasons",),
    ("failure_reasons", 0),
    ("judgment",),
    ("judgment", "success"),
    ("judgment", "rationale"),
    ("judgment", "failed_turn"),
    ("judgment", "failed_turn_number"),
    ("agent_actions",),
    ("turns",),
    ("turns", 0),
    ("turns", 0, "success"),
    ("turns", 0, "rationale"),
    ("turns", 0, "turn"),
    ("turns", 0, "turn_number"),
    ("timings",),
    ("timings", "total_s"),
    ("image",),
    ("started_at",),
]
STATUS_FIELDS = [
    (),
    ("scenario_id",),
    ("status",),
    ("turn_index",),
    ("turn_number",),
    ("nb_turns",),
    ("started_at",),
    ("agent_actions",),
    ("turns",),
    ("judgment",),
    ("error",),
    ("agent_response",),
]
# (index of the event in viewer_synth.events: 0 USER env event, 1 notification, 2 tool call, -1 judgment, -2 message)
EVENT_FIELDS = [
    (0, ()),
    (0, ("kind",)),
    (0, ("wall_time",)),
    (0, ("args",)),
    (0, ("args", "content")),
    (0, ("event_type",)),
    (0, ("app",)),
    (1, ("content",)),
    (1, ("sender",)),
    (2, ("args",)),
    (2, ("result",)),
    (2, ("ok",)),
    (2, ("error",)),
    (2, ("duration_ms",)),
    (2, ("function",)),
    (-1, ("turn",)),
    (-1, ("turn_number",)),
    (-1, ("success",)),
    (-1, ("rationale",)),
    (-2, ("content",)),
    (-2, ("turn",)),
    (-2, ("turn_number",)),
]
TRACE_FIELDS = [
    (),
    ("seq",),
    ("timestamp",),
    ("url",),
    ("provider",),
    ("model",),
    ("latency_ms",),
    ("http_status",),
    ("attempts",),
    ("error",),
    ("request",),
    ("request", "messages"),
    ("request", "messages", 0),
    ("request", "messages", 0, "content"),
    ("request", "tools"),
    ("raw_response",),
    ("response",),
    ("usage",),
    ("usage", "input_tokens"),
]
BODY_FIELDS = [
    ("choices",),
    ("choices", 0),
    ("choices", 0, "message"),
    ("choices", 0, "message", "content"),
    ("choices", 0, "message", "tool_calls"),
    ("model",),
    ("usage",),
    ("usage", "prompt_tokens"),
]
RUN_CONFIG_FIELDS = [
    (),
    ("runner_version",),
    ("image",),
    ("pass_at",),
    ("started_at",),
    ("finished_at",),
    ("config",),
    ("config", "agent"),
    ("config", "agent", "model"),
    ("scenario_count",),
    ("scenarios",),
    ("scenarios", 0),
    ("scenarios", 0, "split"),
    ("scenarios", 0, "scenario_id"),
]
SUMMARY = {
    "generated_at": "2026-01-02",
    "overall": {},
    "splits": {
        "search": {
            "scenarios": 2,
            "runs": 2,
            "success_rate": {"value": 0.5, "se": 0.1},
            "success_rate_verdicts_only": {"value": 0.5},
            "pass_at_k_rate": 0.5,
            "pass_hat_k_rate": 0.5,
            "infra_errors": 1,
            "avg_run_duration_s": 3.0,
        }
    },
}
SUMMARY_FIELDS = [
    (),
    ("generated_at",),
    ("splits",),
    ("overall",),
    ("splits", "search"),
    ("splits", "search", "success_rate"),
    ("splits", "search", "success_rate", "value"),
    ("splits", "search", "success_rate", "se"),
    ("splits", "search", "scenarios"),
    ("splits", "search", "runs"),
    ("splits", "search", "pass_at_k_rate"),
    ("splits", "search", "infra_errors"),
    ("splits", "search", "avg_run_duration_s"),
    ("splits", "search", "success_rate_verdicts_only"),
]


def _label(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path) or "whole"


def field_cases(rng: random.Random) -> list[Case]:
    order = list(range(len(POOL)))
    rng.shuffle(order)
    cases: list[Case] = []

    def pick() -> tuple[str, str]:
        return POOL[order[len(cases) % len(order)]]  # every pool value used, in a seeded order

    for path in RESULT_FIELDS:
        label, snippet = pick()
        cases.append(
            Case(
                f"result.{_label(path)}={label}",
                _file_case("result.json", lambda s: result_doc(s, True), path, snippet),
            )
        )
    for path in STATUS_FIELDS:
        label, snippet = pick()
        cases.append(Case(f"status.{_label(path)}={label}", _status_case(path, snippet)))
    for index, path in EVENT_FIELDS:
        label, snippet = pick()
        cases.append(Case(f"events[{index}].{_label(path)}={label}", _events_case(index, path, snippet)))
    for path in TRACE_FIELDS:
        label, snippet = pick()
        cases.append(Case(f"trace.{_label(path)}={label}", _trace_case(path, snippet)))
    for path in BODY_FIELDS:
        label, snippet = pick()
        cases.append(Case(f"trace.raw_response.{_label(path)}={label}", _body_case(path, snippet)))
    for path in RUN_CONFIG_FIELDS:
        label, snippet = pick()
        cases.append(
            Case(
                f"run_config.{_label(path)}={label}",
                _root_case("run_config.json", path, snippet),
                scope="root",
            )
        )
    for path in SUMMARY_FIELDS:
        label, snippet = pick()
        cases.append(
            Case(f"summary.{_label(path)}={label}", _root_case("summary.json", path, snippet), scope="root")
        )
    return cases


def _file_case(
    name: str, make: Callable[[str], Any], path: tuple[Any, ...], snippet: str
) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        (slot / name).write_text(inject(make(slot.name), path, snippet))

    return build


def _status_case(path: tuple[Any, ...], snippet: str) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng, state="running")  # no result.json: the index reads the daemon's status
        doc = json.loads((slot / "daemon_status.json").read_text())
        doc.update(
            turns=[{"turn": 0, "success": None}], judgment={"success": None}, error="e", agent_response="a"
        )
        (slot / "daemon_status.json").write_text(inject(doc, path, snippet))

    return build


def _events_case(index: int, path: tuple[Any, ...], snippet: str) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        evs = events("task", 3)
        lines = [json.dumps(e) for e in evs]
        lines[index] = inject(evs[index], path, snippet)
        (slot / "events.jsonl").write_text("\n".join(lines) + "\n")

    return build


def _trace_case(path: tuple[Any, ...], snippet: str) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        lines = trace_lines(3, rng, "task", ["chat"])
        texts = [json.dumps(line) for line in lines]
        texts[1] = inject(lines[1], path, snippet)
        (slot / "trace.jsonl").write_text("\n".join(texts) + "\n")

    return build


def _body_case(path: tuple[Any, ...], snippet: str) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        lines = trace_lines(2, rng, "task", ["chat"])
        lines[0]["raw_response"] = inject(json.loads(lines[0]["raw_response"]), path, snippet)
        write_jsonl(slot / "trace.jsonl", lines)

    return build


def _root_case(name: str, path: tuple[Any, ...], snippet: str) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        doc = json.loads((out / name).read_text()) if (out / name).exists() else copy.deepcopy(SUMMARY)
        (out / name).write_text(inject(doc, path, snippet))

    return build


# ---- everything else: bytes, caps, special files, links, names, the viewer's own files ---------------
HOSTILE_NAMES = [
    "javascript:alert(1)",
    "<script>alert(1)<",
    '"onmouseover=alert(1) x="',
    "...",
    "a\nb",
    "%2e%2e",
    "#frag?q=1",
    " ",
    "data:text,x",
    "vbscript:msgbox(1)",
    os.fsdecode(b"\xff\xfejs:alert(1)"),
]
HOSTILE_FILES = [
    "javascript:alert(1).log",
    "<img src=x onerror=alert(1)>.log",
    '"onmouseover=alert(1).txt',
    "data:text,x.log",
    os.fsdecode(b"\xfe\xff.log"),
]
CRAFTED_SPLITS = ["../../outside/pwned", "..", ".", "", ["l"], {"d": 1}, 5, None, "/abs/../../x"]


def make_outside(outside: Path) -> None:
    """Files the viewer must never show or touch: a marker file and a complete scenario."""
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text(
        json.dumps({"kind": "notification", "sender": "user", "content": MARK}) + "\n"
    )
    write_scenario(outside / "dir", MARK, random.Random(0), task=MARK, answer=MARK)
    (outside / "run").mkdir()
    (outside / "run" / "run_config.json").write_text(
        json.dumps({"scenarios": [{"scenario_id": MARK, "split": MARK}]})
    )
    write_scenario(outside / "run" / MARK / MARK, MARK, random.Random(0), task=MARK)


def _bytes(name: str, data: bytes) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        (slot / name).write_bytes(data)

    return build


def _link(name: str, target: Callable[[Path], Path | str]) -> Callable[..., None]:
    """PID in `name` becomes the building process's pid (the case's id stays the same on every
    pytest-xdist worker, which must all collect the same ids)."""

    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        path = slot / name.replace("PID", str(os.getpid()))
        path.unlink(missing_ok=True)
        path.symlink_to(target(outside))

    return build


def _fifo(name: str) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        (slot / name).unlink(missing_ok=True)
        os.mkfifo(slot / name)

    return build


def _lines(name: str, lines: list[str]) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        (slot / name).write_text("\n".join(lines) + "\n")

    return build


def _named(name: str, split: str | None = None) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        good(out / split / name if split else slot.parent / name, rng)

    return build


def _file_named(name: str) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        (slot / name).write_text(f"a log line of {name!r}\n")

    return build


def _stream(kind: str, n: int) -> Callable[..., None]:
    """A body of `n` tiny deltas: joining them with += would take hours."""

    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        good(slot, rng)
        if kind == "anthropic":
            start = (
                "event: content_block_start\n"
                'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
            )
            one = (
                "event: content_block_delta\n"
                'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ab"}}\n\n'
            )
        else:
            start = (
                'data: {"choices":[{"delta":{"tool_calls":'
                '[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]}}]}\n\n'
            )
            one = (
                'data: {"choices":[{"delta":{"tool_calls":'
                '[{"index":0,"function":{"name":"g","arguments":"x"}}]}}]}\n\n'
            )
        write_jsonl(slot / "trace.jsonl", [{"seq": 0, "type": "llm_call", "raw_response": start + one * n}])

    return build


def _root(build_root: Callable[[Path, Path], None]) -> Callable[..., None]:
    def build(out: Path, outside: Path, slot: Path, rng: random.Random) -> None:
        build_root(out, outside)

    return build


def _crafted_splits(out: Path, outside: Path) -> None:
    doc = json.loads((out / "run_config.json").read_text())
    doc["scenarios"] += [
        {"scenario_id": sid, "split": split}
        for split in CRAFTED_SPLITS
        for sid in ("../../outside/pwned2", "/etc/passwd", "..", "dir")
    ]
    doc["scenarios"].append({"scenario_id": "dir", "split": str(outside)})  # absolute
    (out / "run_config.json").write_text(json.dumps(doc))
    (out / "outside").symlink_to(outside)  # where the sanitised "../../outside" lands: a link out


def _cache(text: str) -> Callable[[Path, Path], None]:
    def build(out: Path, outside: Path) -> None:
        (out / "_viewer").mkdir(exist_ok=True)
        (out / "_viewer" / "rows.json").write_text(text)

    return build


def _bad_cache_rows() -> str:
    row = {
        "rel": "search/scenario_00000",
        "name": "x",
        "split": None,
        "run": None,
        "status": "hacked",
        "detail": "",
        "scenario_id": XSS,
        "duration_s": "x",
        "actions": None,
        "llm_calls": 0,
        "tokens_in": None,
        "tokens_out": None,
        "reason": "",
        "has_page": True,
    }
    return json.dumps(
        {
            "version": 2,
            "rows": {
                "search/scenario_00000": {"row": row, "sig": []},
                "../../outside": {"row": {**row, "rel": "../../outside", "status": "pass"}, "sig": []},
                "search/scenario_00001": "not an entry",
            },
        }
    )


def special_cases() -> list[Case]:
    rng = random.Random(99)
    cases = [
        Case(f"{name}=binary", _bytes(name, rng.randbytes(3000) + b"\x00\xff\xfe"))
        for name in ("result.json", "daemon_status.json", "events.jsonl", "trace.jsonl", "agent_response.txt")
    ]
    cases += [
        Case(
            "result.json=latin-1", _bytes("result.json", b'{"scenario_id": "caf\xe9 \xff", "success": true}')
        ),
        Case(
            "events.jsonl=latin-1",
            _bytes(
                "events.jsonl",
                b'{"kind": "notification", "sender": "user", "content": "caf\xe9"}\n\xff\xfe\n',
            ),
        ),
        Case(
            "trace.jsonl=nul-and-crlf",
            _bytes("trace.jsonl", b'{"seq": 0, "raw_response": "a\x00b"}\r\n\x00\x00\r\n{"seq": 1}\r\n'),
        ),
        Case("result.json=empty", _bytes("result.json", b"")),
        Case("result.json=spaces", _bytes("result.json", b"  \n\t")),
        Case(
            "trace.jsonl=20MB-line",
            _bytes("trace.jsonl", b'{"seq": 0, "x": "' + b"y" * (20 << 20) + b'"}\n'),
            expect="not parsed",
        ),
        Case(
            "trace.jsonl=over-line-cap",
            _lines("trace.jsonl", [json.dumps({"seq": i}) for i in range(120)]),
            caps={"safe_io.TRACE_LINES": 50},
            expect="truncated",
        ),
        Case(
            "trace.jsonl=over-byte-cap",
            _lines("trace.jsonl", [json.dumps({"seq": i, "pad": "p" * 5000}) for i in range(200)]),
            caps={"safe_io.TRACE_BYTES": 200_000},
            expect="truncated",
        ),
        Case(
            "events.jsonl=over-line-cap",
            _lines("events.jsonl", [json.dumps({"kind": "x", "i": i}) for i in range(100)]),
            caps={"safe_io.EVENTS_LINES": 30},
            expect="truncated",
        ),
        Case(
            "events.jsonl=3000-bad-lines",
            _lines("events.jsonl", ["{nope"] * 3000),
            expect="more unreadable lines",
        ),
        Case(
            "agent_response.txt=over-cap",
            _bytes("agent_response.txt", b"r" * 5000),
            caps={"safe_io.TEXT_CAP": 1000},
            expect="truncated",
        ),
        Case(
            "result.json=over-cap",
            _bytes("result.json", json.dumps(result_doc("big", True) | {"pad": "p" * 5000}).encode()),
            caps={"safe_io.JSON_CAP": 1000},
            expect="truncated",
        ),
        Case(
            "trace.jsonl=line-over-line-cap",
            _lines("trace.jsonl", [json.dumps({"seq": 0, "pad": "p" * 200_000})]),
            caps={"safe_io.LINE_CAP": 65536},
            expect="not parsed",
        ),
        Case("trace=anthropic-100k-deltas", _stream("anthropic", 100_000)),
        Case("trace=chat-100k-tool-deltas", _stream("chat", 100_000)),
        Case(
            "slot=600-files",
            lambda out, outside, slot, rng: (
                good(slot, rng),
                [(slot / f"f{i}.log").touch() for i in range(600)],
            ),
            expect="only the first 500",
        ),
    ]
    cases += [
        Case(f"{name}=fifo", _fifo(name), expect="not a regular file")
        for name in ("events.jsonl", "trace.jsonl", "result.json", "agent_response.txt", "daemon_status.json")
    ]
    cases += [
        Case(
            "result.json=directory",
            lambda out, outside, slot, rng: (
                good(slot, rng),
                (slot / "result.json").unlink(),
                (slot / "result.json").mkdir(),
            ),
            expect="not a regular file",
        )
    ]
    cases += [
        Case(f"{name}->{label}", _link(name, target), expect="symbolic link")
        for name, label, target in [
            ("result.json", "/etc/passwd", lambda o: "/etc/passwd"),
            ("agent_response.txt", "/etc/passwd", lambda o: "/etc/passwd"),
            ("trace.jsonl", "outside", lambda o: o / "secret.txt"),
            ("events.jsonl", "outside", lambda o: o / "secret.txt"),
            ("daemon_status.json", "outside", lambda o: o / "dir" / "daemon_status.json"),
            ("container.log", "/etc/passwd", lambda o: "/etc/passwd"),
            ("trace.html", "outside", lambda o: o / "secret.txt"),
            (".trace.html.PID.viewer-tmp", "outside", lambda o: o / "planted"),
        ]
    ]
    cases += [
        Case(
            "scenario-dir->outside",
            lambda out, outside, slot, rng: (
                slot.parent.mkdir(parents=True, exist_ok=True),
                slot.symlink_to(outside / "dir"),
            ),
            expect="symbolic link",
        ),
        Case(
            "split-dir->outside",
            lambda out, outside, slot, rng: (out / slot.name).symlink_to(outside),
            expect="symbolic link",
        ),
    ]
    cases += [Case(f"dir-name={name!r}", _named(name)) for name in HOSTILE_NAMES]
    cases += [Case(f"split-name={name!r}", _named("x", name)) for name in HOSTILE_NAMES[:3]]
    cases += [Case(f"file-name={name!r}", _file_named(name)) for name in HOSTILE_FILES]
    cases += [
        Case(name, _root(build), scope="root", expect=expect, caps=caps)
        for name, build, expect, caps in [
            ("run_config.crafted-splits", _crafted_splits, "symbolic link", {}),
            (
                "run_config.over-listed-cap",
                lambda out, outside: None,
                "only the first 1",
                {"scan.MAX_LISTED": 1},
            ),
            ("_viewer->outside", lambda out, outside: (out / "_viewer").symlink_to(outside), "", {}),
            (
                "_viewer/viewer.css->outside",
                lambda out, outside: (
                    (out / "_viewer").mkdir(),
                    (out / "_viewer" / "viewer.css").symlink_to(outside / "secret.txt"),
                ),
                "",
                {},
            ),
            (
                "index.html->outside",
                lambda out, outside: (out / "index.html").symlink_to(outside / "secret.txt"),
                "",
                {},
            ),
            (
                "planted-index-tmp",
                lambda out, outside: (out / f".index.html.{os.getpid()}.viewer-tmp").symlink_to(
                    outside / "planted"
                ),
                "",
                {},
            ),
            (
                "run_1->outside",
                lambda out, outside: (out / "run_1").symlink_to(outside / "run"),
                "symbolic link",
                {},
            ),
            ("rows.json=bad-rows", _cache(_bad_cache_rows()), "", {}),
            ("rows.json=deep", _cache(POOL[0][1]), "", {}),
            ("rows.json=int_5000", _cache(POOL[3][1]), "", {}),
            ("rows.json=rows-list", _cache('{"version": 2, "rows": [1, 2]}'), "", {}),
            (
                "root-is-a-scenario",
                lambda out, outside: (out / "result.json").write_text(
                    inject(result_doc("root", True), ("scenario_id",), json.dumps(XSS))
                ),
                "",
                {},
            ),
        ]
    ]
    return cases


def all_cases() -> list[Case]:
    return field_cases(random.Random(20240611)) + special_cases()
