"""The universe-scale corpus (scripts/make_gaia2_corpus.py) end to end, in real podman.

Generated in the runtime image (cached per generator version, see corpus_build.py), it must look
like real Gaia2 files (size, instance names, record counts, metadata, augmentation, file data),
come out byte-identical twice, be accepted by ARE itself (oracle accepted by GraphPerEventJudge,
one action removed rejected), and through the runner's normal path (`run-dataset` with the corpus
directory as a split) the oracle must pass every scenario and fail every one with an action dropped;
the time scenario must refuse its message sent at once.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_build import REPO, SPLIT, build_corpus, status  # noqa: E402
from corpus_stats import INSTANCES, app_state_bytes, file_nodes, record_counts  # noqa: E402
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]

CAPABILITIES = {"Execution", "Search", "Adaptability", "Time", "Ambiguity"}
MIN_RECORDS = {
    "contacts": 500,
    "emails": 1000,
    "messages": 1000,
    "events": 500,
    "items": 1000,
    "apartments": 500,
    "rides": 300,
    "files": 400,
    "total": 5000,
}
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def built(sandbox, images) -> Path:
    return build_corpus(sandbox)


@pytest.fixture(scope="module")
def docs(built) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((built / SPLIT).glob("*.json"))}


def run_dataset(root: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run-dataset",
            "--dataset-root",
            str(root),
            "--splits",
            SPLIT,
            "--image",
            ORACLE_IMAGE,
            "--output-dir",
            str(out),
            "--concurrency",
            "2",
            "--filesystem-dir",
            str(root / SPLIT / "gaia2_filesystem"),
            *extra,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1500,
        env={**os.environ, "COLUMNS": "200"},
    )


def results(out: Path) -> dict[str, dict]:
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    return {r["scenario_id"]: r for r in lines}


def test_every_file_is_universe_scale(built, docs):
    assert len(docs) >= 10
    for name, doc in docs.items():
        text = (built / SPLIT / name).read_text(encoding="utf-8")
        assert text.count("\n") == 1 and text.endswith("\n"), f"{name}: one line of JSON, like real files"
        assert app_state_bytes(doc) >= 2 * MIB, f"{name}: only {app_state_bytes(doc)} bytes of app state"
        assert {a["name"]: a["class_name"] for a in doc["apps"]} == INSTANCES, name
        counts = record_counts(doc)
        low = {k: counts[k] for k, least in MIN_RECORDS.items() if counts[k] < least}
        assert not low, f"{name}: too few records {low}"


def test_metadata_looks_like_real_gaia2(docs):
    capabilities: dict[str, int] = {}
    durations = []
    for name, doc in docs.items():
        definition = doc["metadata"]["definition"]
        assert re.fullmatch(r"scenario_universe_\d+_[0-9a-z]{6}", definition["scenario_id"]), name
        assert name == f"{definition['scenario_id']}.json"
        assert definition["start_time"] == 1728975600.0 and definition["hints"], name
        tags = definition["tags"]
        assert tags[0] == "Universe" and len(tags) == 2 and tags[1] in CAPABILITIES, tags
        capabilities[tags[1]] = capabilities.get(tags[1], 0) + 1
        durations.append(definition["duration"])
        assert list(doc)[0] == "metadata" and list(doc)[-1] == "augmentation", list(doc)
        names, descriptions = (
            doc["augmentation"]["tool_names_mapping"],
            doc["augmentation"]["tool_descriptions_mapping"],
        )
        assert len(names) > 80 and set(names) == set(descriptions), name
        assert all(k.split("__")[0] == v.split("__")[0] and k != v for k, v in names.items())
        assert {k.split("__")[0] for k in names} == set(INSTANCES) - {"AgentUserInterface", "SystemApp"}
    assert set(capabilities) == CAPABILITIES and min(capabilities.values()) >= 2, capabilities
    assert None in durations and any(d for d in durations), durations


def test_events_cover_turns_env_reactions_and_delays(docs):
    events = {name: doc["events"] for name, doc in docs.items()}
    users = {n: [e for e in evs if e["event_type"] == "USER"] for n, evs in events.items()}
    assert any(len(u) == 2 for u in users.values()), (
        "an ambiguity scenario: the user's answer is a second turn"
    )
    envs = [e for evs in events.values() for e in evs if e["event_type"] == "ENV"]
    assert envs and all(len(e["dependencies"]) == 1 for e in envs)  # ARE's Gaia2 rule
    by_id = {e["event_id"]: e for evs in events.values() for e in evs}
    assert any(by_id[e["dependencies"][0]]["action"]["function"] == "send_message_to_user" for e in envs), (
        "an ENV event reacting to the agent's finished turn"
    )
    args = [a["value"] for evs in events.values() for e in evs for a in (e["action"] or {}).get("args") or []]
    assert any(isinstance(v, str) and re.fullmatch(r"\{\{[\w-]+\}\}", v) for v in args), (
        "a placeholder argument"
    )
    oracle = [e for evs in events.values() for e in evs if e["class_name"] == "OracleEvent"]
    assert max(e["event_relative_time"] for e in oracle) >= 300, "an action due minutes later"
    for name, doc in docs.items():  # ARE's benchmark stops a Time scenario after 420 s of simulated time
        if "Time" in doc["metadata"]["definition"]["tags"]:
            assert _latest_due(doc["events"]) < 420, name


def _latest_due(events: list[dict]) -> float:
    """When the last event is due, in seconds after the start, along the dependency graph."""
    by_id = {e["event_id"]: e for e in events}
    due: dict[str, float] = {}

    def at(event_id: str) -> float:
        if event_id not in due:
            event = by_id[event_id]
            due[event_id] = (
                max((at(d) for d in event["dependencies"]), default=0.0) + event["event_relative_time"]
            )
        return due[event_id]

    return max(at(e) for e in by_id)


def test_files_nodes_point_at_generated_bytes(built, docs):
    root = built / SPLIT / "gaia2_filesystem"
    for _name, doc in docs.items():
        files = next(a for a in doc["apps"] if a["name"] == "Files")["app_state"]["files"]
        nodes = file_nodes(files)
        assert len(nodes) >= 400 and "tmpdir" not in json.dumps(files)
        for node in nodes:
            assert node["real_path"].startswith("demo_filesystem/") and node["real_path"].endswith(
                node["name"]
            )
            assert (root / node["real_path"]).is_file(), node["real_path"]
    expenses = root / "demo_filesystem" / "Documents" / "Finance" / "travel_expenses_2024.csv"
    assert "Flight Paris-Lisbon" in expenses.read_text()


def test_generation_is_byte_identical_on_rerun(built, docs):
    line = status(built)["identical_files"]
    identical, total = int(line.split()[0]), int(line.split()[2])
    assert identical == total > len(docs) and line.endswith("differing []"), line


def test_are_accepts_every_oracle_and_rejects_every_broken_one(built, docs):
    assert status(built)["validate"] == "0"
    log = (built / "validate.log").read_text()
    n = len(docs)
    assert f"SUMMARY: {n}/{n} scenarios passed" in log and f"rejects broken oracle) {n}/{n}" in log, log[
        -2000:
    ]
    assert log.count(" rejected (") == n and "0 LLM calls" in log


def test_oracle_passes_every_scenario_through_run_dataset(built, docs, tmp_path):
    proc = run_dataset(built, tmp_path / "out")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    got = results(tmp_path / "out")
    assert sorted(got) == sorted(d["metadata"]["definition"]["scenario_id"] for d in docs.values())
    assert all(r["success"] is True for r in got.values()), {k: r.get("error") for k, r in got.items()}
    # ARE's offline judge over the ARE trace each run saved (every capability: time, ambiguity's
    # second turn, ENV reactions, placeholders, Files) gives every scenario the same verdict.
    judged = subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", "judge", str(tmp_path / "out"), "--concurrency", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "COLUMNS": "200"},
    )
    summary = json.loads((tmp_path / "out" / "rejudge_summary.json").read_text())
    assert judged.returncode == 0 and summary["counts"] == {"same": len(docs)}, (
        {r["scenario_id"]: r["error"] or r["reason"] for r in summary["runs"] if r["change"] != "same"},
        judged.stderr[-2000:],
    )


def test_oracle_without_one_action_fails_every_scenario(built, docs, tmp_path):
    proc = run_dataset(built, tmp_path / "out", "--env", "GAIA2_ORACLE_DROP_ACTION=first")
    got = results(tmp_path / "out")
    assert len(got) == len(docs), proc.stdout[-3000:] + proc.stderr[-3000:]
    verdicts = {k: (r["success"], r["status"], r.get("error")) for k, r in got.items()}
    assert all(success is False and error is None for success, _, error in verdicts.values()), verdicts


# Sends the time scenario's message at once instead of 5 minutes later (tool API, as an agent would).
HASTY_AGENT = r"""
import json, os, urllib.request
base = os.environ["GAIA2_TOOLS_URL"]
def call(tool, **args):
    req = urllib.request.Request(base + "/call", json.dumps({"tool": tool, "args": args}).encode(),
                                 {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
assert call("Messages__send_message", user_id="user-hugo-lambert",
            content="Leaving the office now, see you at the climbing gym at 19:00.")["ok"]
call("AgentUserInterface__send_message_to_user", content="Sent your message to Hugo Lambert.")
"""


def test_time_scenario_rejects_the_right_action_at_the_wrong_time(built, docs, tmp_path):
    from gaia2_runner.execution.scenario_run import run_scenario

    name = next(
        n
        for n, d in docs.items()
        if d["metadata"]["definition"]["tags"][1] == "Time" and "climbing gym" in json.dumps(d["events"])
    )
    agent = f"/opt/gaia2/venv/bin/python -c {shlex.quote(HASTY_AGENT)}"
    result = run_scenario(
        built / SPLIT / name,
        ORACLE_IMAGE,
        tmp_path,
        extra_env={"GAIA2_AGENT_COMMAND": agent},
        filesystem_dir=built / SPLIT / "gaia2_filesystem",
    )
    assert (result.status, result.success, result.error) == ("completed", False, None), (result.note,)
    # Same tool, same arguments, so the counts match; only the time check can refuse the match.
    assert any(
        "did not perform" in r and "MessagingAppV2__send_message" in r and "count" not in r
        for r in result.failure_reasons
    ), result.failure_reasons
    assert result.failure_reasons[0].startswith("turn 1: send_message: at "), (
        result.failure_reasons
    )  # the diff
