"""Fuzz: hundreds of malformed inputs, each one `error:` line with exit 2 and nothing else.

Seeded and generated over the classes users and agents produce: files that are not what they
claim (binary, UTF-16, NUL bytes, directories), JSON at the edges (deep nesting, 5,000-digit
integers, NaN/Infinity), numbers and places (nan, inf, negative, absurd, output dir that is a file),
scenario ids and paths. Every case has a time cap; none may print a traceback, start a container
or write anything.
"""

from __future__ import annotations

import json
import random
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaia2_runner.cli import app
from gaia2_runner.sandbox.sandbox import Sandbox

REPO = Path(__file__).resolve().parents[2]
GOOD = (REPO / "examples" / "scenarios" / "demo_calendar_add_event.json").read_text()
CASE_SECONDS = 20
SEED = 20261122

Case = tuple[str, Callable[[Path], list[str]]]


def _bytes_file(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(d: Path) -> Path:
        (d / name).write_bytes(data)
        return d / name

    return make


def bad_json_documents(rng: random.Random) -> list[tuple[str, bytes]]:
    deep = "[" * 100_000 + "]" * 100_000
    huge = "9" * 5000
    good = GOOD
    docs = [
        ("binary", bytes(rng.randrange(256) for _ in range(512))),
        ("utf16", good.encode("utf-16")),
        ("latin1", good.replace("Dentist", "Dentïst").encode("latin-1")),
        ("nul", good.encode()[:200] + b"\0" + good.encode()[200:]),
        ("empty", b""),
        ("spaces", b"   \n\t "),
        ("deep", deep.encode()),
        ("deep_obj", ('{"a":' * 50_000 + "1" + "}" * 50_000).encode()),
        ("huge_int", f'{{"apps": [], "events": [], "x": {huge}}}'.encode()),
        ("nan", good.replace('"duration":', '"duration": NaN, "d0":').encode()),
        ("infinity", good.replace('"duration":', '"duration": Infinity, "d0":').encode()),
        ("neg_inf_anywhere", b'{"apps": [], "events": [], "x": -Infinity}'),
        ("list", b"[1, 2, 3]"),
        ("string", b'"scenario"'),
        ("no_events", b'{"apps": []}'),
        ("no_apps", b'{"events": []}'),
        ("events_dict", b'{"apps": [], "events": {}}'),
        ("duration_str", b'{"apps": [], "events": [], "metadata": {"definition": {"duration": "ten"}}}'),
        ("duration_neg", b'{"apps": [], "events": [], "metadata": {"definition": {"duration": -5}}}'),
        ("duration_huge", b'{"apps": [], "events": [], "metadata": {"definition": {"duration": 1e300}}}'),
        ("truncated", good.encode()[: len(good) // 2]),
        ("trailing", (good + " }").encode()),
    ]
    corrupted = 0
    while corrupted < 14:  # random corruption of a good file, kept when it breaks the JSON
        raw = bytearray(good.encode())
        for _ in range(rng.randint(1, 6)):
            raw[rng.randrange(len(raw))] = rng.choice(b'{}[]",:\0\xff')
        try:
            json.loads(bytes(raw))
        except ValueError:
            docs.append((f"corrupt{corrupted}", bytes(raw)))
            corrupted += 1
    return docs


def scenario_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    for name, data in bad_json_documents(rng):
        make = _bytes_file(f"{name}.json", data)
        cases.append(
            (
                f"run scenario {name}",
                lambda d, m=make: [
                    "run",
                    "--scenario",
                    str(m(d)),
                    "--image",
                    "img",
                    "--output-dir",
                    str(d / "out"),
                ],
            )
        )
        cases.append(
            (
                f"run-dataset scenario {name}",
                lambda d, m=make: ["run-dataset", "--scenario", str(m(d)), "--output-dir", str(d / "out")],
            )
        )
    return cases


def flag_cases() -> list[Case]:
    def scenario(d: Path) -> str:
        (d / "ok.json").write_text(GOOD)
        return str(d / "ok.json")

    bad_flags = [
        ["--timeout", "nan"],
        ["--timeout", "inf"],
        ["--timeout", "-inf"],
        ["--timeout", "-1"],
        ["--timeout", "0"],
        ["--timeout", "1e300"],
        ["--health-timeout", "nan"],
        ["--health-timeout", "0"],
        ["--health-timeout", "1e9"],
        ["--pass-at", "10000000"],
        ["--pass-at", "0"],
        ["--pass-at", "-3"],
        ["--concurrency", "0"],
        ["--concurrency", "-5"],
        ["--concurrency", "100000"],
        ["--log-level", "LOUD"],
        ["--provider", "mystery"],
        ["--provider", "openai"],
        ["--judge-provider", "oracle", "--judge-model", "j"],
        ["--judge-provider", "openai"],
        ["--base-url", "https://bob:hunter2@llm.example/v1"],
        ["--judge-base-url", "https://bob:hunter2@llm.example/v1"],
        ["--env", "NOEQUALS"],
        ["--env", "=value"],
        ["--api-key-env", "G2_FUZZ_UNSET_VAR", "--provider", "openai", "--model", "m", "--judge-model", "j"],
        ["--output-dir", "FILE"],
        ["--output-dir", ""],
        ["--output-dir", "with\0nul"],
        ["--env-file", "MISSING"],
        ["--env-file", "DIR"],
        ["--env-file", "BINARY"],
        ["--env-file", "UTF16"],
        ["--env-file", "with\0nul"],
        ["--time-speed", "0.5"],
        ["--time-speed", "nan"],
        ["--time-speed", "1e9"],
    ]
    cases: list[Case] = []
    for flags in bad_flags:
        for command in ("run", "run-dataset"):

            def argv(d: Path, flags=flags, command=command) -> list[str]:
                (d / "a_file").write_text("not a directory")
                (d / "a_dir").mkdir(exist_ok=True)
                (d / "binary.env").write_bytes(b"\0\xff\xfeKEY=\x00")
                (d / "utf16.env").write_bytes("KEY=value\n".encode("utf-16"))
                subst = {
                    "FILE": str(d / "a_file"),
                    "MISSING": str(d / "missing.env"),
                    "DIR": str(d / "a_dir"),
                    "BINARY": str(d / "binary.env"),
                    "UTF16": str(d / "utf16.env"),
                }
                flags = [subst.get(f, f) for f in flags]
                base = ["--scenario", scenario(d)]
                if "--output-dir" not in flags:
                    base += ["--output-dir", str(d / "out")]
                if command == "run":
                    base += ["--image", "img"]
                return [command, *base, *flags]

            cases.append((f"{command} {' '.join(flags)!r}", argv))
    return cases


def target_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []

    def dataset(d: Path) -> Path:
        (d / "data" / "search").mkdir(parents=True, exist_ok=True)
        (d / "data" / "search" / "ok.json").write_text(GOOD)
        return d / "data"

    subsets = {
        name: data
        for name, data in bad_json_documents(rng)
        if name in ("binary", "utf16", "nul", "deep", "deep_obj", "huge_int", "nan", "truncated", "string")
    }
    for name, data in subsets.items():
        cases.append(
            (
                f"subset {name}",
                lambda d, data=data: [
                    "run-dataset",
                    "--dataset-root",
                    str(dataset(d)),
                    "--subset",
                    str(_bytes_file("s.json", data)(d)),
                    "--output-dir",
                    str(d / "out"),
                ],
            )
        )
    cases.append(
        (
            "subset is a directory",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str(dataset(d)),
                "--subset",
                str(d / "data"),
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    cases.append(
        (
            "subset unknown id",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str(dataset(d)),
                "--subset",
                str(_bytes_file("s.txt", b"nope\n")(d)),
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    cases.append(
        (
            "unknown split",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str(dataset(d)),
                "--splits",
                "time",
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    cases.append(
        (
            "no splits",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str(dataset(d)),
                "--splits",
                ",",
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    cases.append(
        (
            "dataset root is a file",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str(_bytes_file("f.json", GOOD.encode())(d)),
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    cases.append(
        (
            "empty dataset",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str((d / "empty").mkdir() or d / "empty"),
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    cases.append(
        (
            "limit zero",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str(dataset(d)),
                "--limit",
                "0",
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    cases.append(
        (
            "two targets",
            lambda d: [
                "run-dataset",
                "--dataset-root",
                str(dataset(d)),
                "--scenario",
                str(_bytes_file("x.json", GOOD.encode())(d)),
                "--output-dir",
                str(d / "out"),
            ],
        )
    )
    return cases


def toml_cases(rng: random.Random) -> list[Case]:
    good = '[target]\nscenario = "ok.json"\n[run]\noutput_dir = "out"\n'
    bodies: list[tuple[str, bytes]] = [
        ("binary", bytes(rng.randrange(256) for _ in range(300))),
        ("utf16", good.encode("utf-16")),
        ("nul", good.replace("out", "o\0ut").encode()),
        ("nul_escape", good.replace('"out"', '"o\\u0000ut"').encode()),
        ("deep", ("x = " + "[" * 100_000 + "]" * 100_000 + "\n").encode()),
        ("deep_table", ("x = " + "{a=" * 20_000 + "1" + "}" * 20_000 + "\n").encode()),
        ("timeout_inf", (good + "timeout = inf\n").encode()),
        ("timeout_nan", (good + "timeout = nan\n").encode()),
        ("timeout_neg", (good + "timeout = -1.0\n").encode()),
        ("timeout_str", (good + 'timeout = "soon"\n').encode()),
        ("pass_at_huge", (good + "pass_at = 10000000\n").encode()),
        ("concurrency_neg", (good + "concurrency = -2\n").encode()),
        ("time_speed_zero", (good + "time_speed = 0\n").encode()),
        ("output_empty", good.replace('"out"', '""').encode()),
        ("output_file", good.replace('"out"', '"a_file"').encode()),
        ("unknown_key", (good + "speed = 3\n").encode()),
        ("unknown_section", (good + "[turbo]\nx = 1\n").encode()),
        ("section_value", b"target = 3\n"),
        ("bad_toml", b"[target\nscenario = \n"),
        ("splits_int", b'[target]\ndataset_root = "."\nsplits = 3\n[run]\noutput_dir = "out"\n'),
        ("subset_dir", (good.replace('scenario = "ok.json"', 'dataset_root = "d"\nsubset = "d"')).encode()),
        ("missing_scenario", good.replace("ok.json", "missing.json").encode()),
        ("env_nul", (good.replace("[run]", '[agent]\nenv = { A = "x" }\nprovider = "nope"\n[run]')).encode()),
        ("undefined_var", good.replace('"out"', '"${G2_FUZZ_UNDEFINED}/o"').encode()),
        ("empty_config", b""),
        (
            "creds",
            (
                good.replace(
                    "[run]",
                    '[agent]\nprovider = "openai-compat"\nmodel = "m"\n'
                    'base_url = "http://u:p@h/v1"\n[judge]\nmodel = "j"\n[run]',
                )
            ).encode(),
        ),
    ]
    cases: list[Case] = []
    for name, body in bodies:

        def argv(d: Path, body=body) -> list[str]:
            (d / "ok.json").write_text(GOOD)
            (d / "a_file").write_text("x")
            (d / "d" / "s").mkdir(parents=True, exist_ok=True)
            (d / "d" / "s" / "ok.json").write_text(GOOD)
            (d / "run.toml").write_bytes(body)
            return ["run-config", "--config", str(d / "run.toml")]

        cases.append((f"toml {name}", argv))
        cases.append((f"toml {name} dry-run", lambda d, a=argv: [*a(d), "--dry-run"]))
    cases.append(("config is a directory", lambda d: ["run-config", "--config", str(d)]))
    cases.append(("config with NUL", lambda d: ["run-config", "--config", "x\0.toml"]))
    return cases


def all_cases() -> list[Case]:
    rng = random.Random(SEED)
    return scenario_cases(rng) + flag_cases() + target_cases(rng) + toml_cases(rng)


CASES = all_cases()


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 200, len(CASES)


@pytest.fixture
def no_containers(monkeypatch):
    started: list[str] = []

    def refuse(self, image, *args, **kwargs):  # noqa: ANN001 - recorded, never run
        started.append(image)
        raise AssertionError("bad input started a container")

    monkeypatch.setattr(Sandbox, "run_scenario_container", refuse)
    return started


def _alarm(_signum, _frame):  # noqa: ANN001
    raise TimeoutError("case took too long")


@pytest.mark.parametrize("name,build", CASES, ids=[name for name, _ in CASES])
def test_bad_input_is_one_error_line(
    name: str, build: Callable[[Path], list[str]], tmp_path: Path, monkeypatch, no_containers
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("G2_FUZZ_UNSET_VAR", raising=False)
    argv = build(tmp_path)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        result = CliRunner().invoke(app, argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    output = result.output
    assert not isinstance(result.exception, TimeoutError), f"{name}: hung"
    assert "Traceback" not in output and result.exit_code == 2, (
        name,
        result.exit_code,
        output[-2000:],
        repr(result.exception),
    )
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), (name, output[-2000:])
    assert not no_containers
    assert not (tmp_path / "out").exists(), f"{name}: wrote into the output directory"
