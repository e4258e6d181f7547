"""The host-side scrubber: no configured secret value reaches a file the runner writes."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from gaia2_runner.config import apply_overrides, load_config, secret_values
from gaia2_runner.execution.container_env import container_env
from gaia2_runner.output.artifacts import extract_output, write_text
from gaia2_runner.output.result import ScenarioResult, write_result
from gaia2_runner.output.scrub import REDACTED, Scrubber

KEY_A = "sk-agent-FAKE-1234567890"
KEY_J = "sk-judge-FAKE-0987654321"
DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def stream(scrub: Scrubber, data: bytes, chunk_size: int) -> bytes:
    out = io.BytesIO()
    assert scrub.copy(io.BytesIO(data), out, chunk_size=chunk_size) == len(data)
    return out.getvalue()


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 7, 11, 24, 25, 1 << 20])
def test_secrets_split_across_reads_are_still_replaced(chunk_size):
    scrub = Scrubber([KEY_A, KEY_J])
    data = (f"x{KEY_A}{KEY_A} mid {KEY_J}\n" * 3 + KEY_A[:-1] + " end " + KEY_J).encode()
    got = stream(scrub, data, chunk_size)
    assert KEY_A.encode() not in got and KEY_J.encode() not in got
    assert got.count(REDACTED.encode()) == 10
    assert got.startswith(b"x[REDACTED][REDACTED] mid [REDACTED]\n") and KEY_A[:-1].encode() in got
    assert got == scrub.data(data)  # streaming gives what one pass over the whole input gives


def test_every_split_position_of_a_secret_is_caught():
    scrub = Scrubber([KEY_A])
    for cut in range(len(KEY_A) + 1):
        data = b"a" * 30 + KEY_A.encode() + b"b" * 30
        for size in (cut or 1, 30 + cut):
            assert stream(scrub, data, size) == b"a" * 30 + REDACTED.encode() + b"b" * 30


def test_short_values_are_ignored_and_longest_secret_wins():
    scrub = Scrubber(["1", "true", "", None, "abcdefgh", "abcdefgh-and-more"])
    assert scrub.text("1 true abcdefgh-and-more abcdefgh") == f"1 true {REDACTED} {REDACTED}"
    assert not Scrubber(["short", None]) and Scrubber(["short", None]).text("short") == "short"
    assert stream(Scrubber(), b"untouched", 3) == b"untouched"


def test_json_escaped_forms_and_structures():
    tricky = 'pa"ss\\wörd-123'
    scrub = Scrubber([tricky])
    line = json.dumps({"args": {"v": tricky}}).encode()
    assert b"[REDACTED]" in stream(scrub, line, 4) and b'pa\\"ss' not in stream(scrub, line, 4)
    assert b"[REDACTED]" in scrub.data(json.dumps({"v": tricky}, ensure_ascii=False).encode())
    doc = {"error": f"boom {tricky}", tricky: [1, True, None, f"<{tricky}>"]}
    assert scrub.value(doc) == {"error": "boom [REDACTED]", REDACTED: [1, True, None, "<[REDACTED]>"]}


def test_extracted_artifacts_container_log_and_result_are_scrubbed(tmp_path):
    big = b"z" * ((1 << 20) - 5) + KEY_J.encode() + b"\n"  # the key straddles extract's 1 MiB reads
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in (("output/trace.jsonl", big), ("output/agent.log", f"key={KEY_A}\n".encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    scrub = Scrubber([KEY_A, KEY_J])
    extract_output(buf.getvalue(), tmp_path, scrub=scrub)
    write_text(tmp_path, "container.log", f"env {KEY_J}", scrub)
    result = ScenarioResult(
        "s1",
        error=f"agent said {KEY_A}",
        failure_reasons=[KEY_J],
        judgment={"rationale": KEY_A},
        turns=[{"rationale": KEY_J}],
    )
    result.redact(scrub)
    write_result(result, tmp_path)
    for path in tmp_path.iterdir():
        text = path.read_bytes()
        assert KEY_A.encode() not in text and KEY_J.encode() not in text, path
        assert REDACTED.encode() in text, path
    assert (tmp_path / "trace.jsonl").stat().st_size == len(big) - len(KEY_J) + len(REDACTED)


def test_secret_values_of_a_config(tmp_path):
    config = apply_overrides(
        load_config(None),
        {
            "dataset_root": DEMO,
            "output_dir": tmp_path,
            "provider": "openai",
            "model": "gpt",
            "judge_provider": "openai",
            "judge_model": "judge",
            "api_key_env": "MY_KEY",
            "env": ["EXTRA_TOKEN=tok-1234567890", "FLAG=1"],
        },
    )  # (credentials in base URLs are refused up front)
    env = container_env(
        config, {"MY_KEY": KEY_A, "OPENAI_API_KEY": KEY_J, "https_proxy": "http://user:proxy-pass-99@p:3128"}
    )
    env["GAIA2_AGENT_BASE_URL"] = "https://bob:hunter2-long@llm.example/v1"  # had one slipped through
    values = set(secret_values(config, env))
    assert {KEY_A, KEY_J, "tok-1234567890", "1", "hunter2-long", "proxy-pass-99"} <= values
    assert Scrubber(values).text("FLAG=1 tok-1234567890") == "FLAG=1 [REDACTED]"  # "1" is too short
