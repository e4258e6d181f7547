"""`gaia2-runner leaderboard` end to end: a tiny local copy of Gaia2 in the hub's own layout
(scripts/make_hub_dataset.py: the five capability configs, mini) through the three phases × 3
runs, with the oracle and with the built-in agent on the scripted provider; a rerun keeps every
finished run; ARE's own submission code (in the runtime image) accepts both bundles and gives the
numbers our report printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_build import run_in_runtime_image
from harness_support import HOST
from make_hub_dataset import CONFIGS, make_hub_dataset

REPO = Path(__file__).resolve().parents[2]
CHECK = Path(__file__).resolve().parents[1] / "support" / "are_submission_check.py"
# make_hub_dataset's configs, mini cut to one scenario (each phase on mini proves no more with two,
# and each costs CI 2 passes x 2 phases x 3 runs)
MINI = CONFIGS["mini"][:1]
RUNS_PER_PHASE = {"standard": 5 * 3, "agent2agent": len(MINI) * 3, "noise": len(MINI) * 3}
UPLOAD_CONFIGS = ["adaptability", "ambiguity", "execution", "mini_a2a", "mini_noise", "search", "time"]
# The built-in agent answers at once (the scripted judge gets the same reply); every run ends with
# a verdict or without one, which is all the pipeline needs.
SEND = {
    "tool_calls": [{"name": "AgentUserInterface__send_message_to_user", "arguments": {"content": "Done."}}]
}


def leaderboard(out: Path, hub: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    args = [
        sys.executable,
        "-m",
        "gaia2_runner.cli",
        "leaderboard",
        "--dataset",
        str(hub),
        "--output-dir",
        str(out),
        "--concurrency",
        "2",
        "--timeout",
        "120",
        *extra,
    ]
    env = {**os.environ, "COLUMNS": "80", "GAIA2_CACHE_DIR": str(cache)}
    return subprocess.run(args, capture_output=True, text=True, cwd=REPO, env=env, timeout=900)


def results(root: Path) -> dict[str, dict]:
    return {str(p.relative_to(root)): json.loads(p.read_text()) for p in sorted(root.rglob("result.json"))}


def bundle_files(root: Path, name: str) -> dict[str, bytes]:
    dest = root / "export_leaderboard"
    return {f"/check/{name}/{p.relative_to(dest)}": p.read_bytes() for p in dest.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Path:
    return make_hub_dataset(tmp_path_factory.mktemp("hub") / "gaia2", configs={**CONFIGS, "mini": MINI})


@pytest.mark.integration
@pytest.mark.timeout(1200)
def test_leaderboard_oracle_and_agent_bundles_pass_ares_submission_code(images, sandbox, fake, hub, tmp_path):
    cache = tmp_path / "cache"
    oracle = tmp_path / "oracle"
    proc = leaderboard(oracle, hub, cache, "--agent", "oracle")
    explain = (proc.stdout[-4000:], proc.stderr[-4000:])
    assert proc.returncode == 0, explain
    done = results(oracle)
    for phase, count in RUNS_PER_PHASE.items():
        runs = [r for path, r in done.items() if path.startswith(f"{phase}/")]
        assert len(runs) == count and all(r["success"] is True for r in runs), (phase, len(runs), explain)
        assert sorted(p.name for p in (oracle / phase).glob("run_*")) == ["run_1", "run_2", "run_3"]
    assert all(len(line) <= 80 for line in proc.stdout.splitlines()), proc.stdout
    for title in ("standard (k = 3)", "agent2agent (k = 3)", "noise (k = 3)", "overall"):
        assert title in proc.stdout, proc.stdout
    macro = [line for line in proc.stdout.splitlines() if line.split()[:1] == ["macro"]][
        -1
    ]  # the overall table
    assert macro.split()[1] == "100.0%", macro
    assert sorted(p.name for p in (oracle / "export_leaderboard").iterdir() if p.is_dir()) == UPLOAD_CONFIGS

    # Rerun: every phase is done, nothing starts, nothing is lost.
    stamps = {p: p.stat().st_mtime_ns for p in oracle.rglob("result.json")}
    again = leaderboard(oracle, hub, cache, "--agent", "oracle")
    assert again.returncode == 0, (again.stdout[-3000:], again.stderr[-3000:])
    for count in RUNS_PER_PHASE.values():
        assert f"all {count} runs done (kept)" in again.stdout, again.stdout
    assert {p: p.stat().st_mtime_ns for p in oracle.rglob("result.json")} == stamps
    # Another setup on the same root: refused before anything runs, even where every run is done.
    other = leaderboard(oracle, hub, cache, "--agent", "oracle", "--time-speed", "2")
    assert other.returncode == 2 and other.stderr.startswith("error: phase standard: "), other.stderr
    assert "holds results of another setup" in other.stderr and len(other.stderr.strip().splitlines()) == 1
    assert {p: p.stat().st_mtime_ns for p in oracle.rglob("result.json")} == stamps

    # The built-in agent on the scripted provider, the same three phases.
    fake.set_script({"chat": [{**SEND, "repeat": 500}]})
    agent = tmp_path / "agent"
    proc = leaderboard(
        agent,
        hub,
        cache,
        "--agent",
        "llm",
        "--provider",
        "openai-compat",
        "--model",
        "fake-model",
        "--base-url",
        f"http://{HOST}:{fake.port}/v1",
        "--agent-option",
        "retry_base_s=0.2",
        "--judge-provider",
        "openai-compat",
        "--judge-model",
        "fake-judge",
        "--judge-base-url",
        f"http://{HOST}:{fake.port}/v1",
    )
    explain = (proc.stdout[-4000:], proc.stderr[-4000:])
    assert proc.returncode in (0, 1), explain  # 1: a soft check the scripted judge answered with no text
    done = results(agent)
    assert len(done) == sum(RUNS_PER_PHASE.values()), explain
    assert all(r["status"] != "interrupted" for r in done.values())
    tools = [
        {(t.get("function") or {}).get("name", "") for t in (r["body"] or {}).get("tools") or []}
        for r in fake.llm_requests()
    ]
    assert any(any(name.endswith("expert_agent") for name in offered) for offered in tools), (
        "the agent2agent phase offered expert agents"
    )
    assert sorted(p.name for p in (agent / "export_leaderboard").iterdir() if p.is_dir()) == UPLOAD_CONFIGS

    # ARE's own submission code on both bundles, in one container.
    files = {
        **bundle_files(oracle, "oracle"),
        **bundle_files(agent, "agent"),
        "/check/are_submission_check.py": CHECK.read_bytes(),
    }
    script = (
        "set -e; cd /check; for b in oracle agent; do mkdir -p out/$b; "
        "/opt/gaia2/venv/bin/python are_submission_check.py $b out/$b m-x prov; done"
    )
    code, logs, _ = run_in_runtime_image(sandbox, files, script, "/check/out", limit_s=300)
    assert code == 0 and logs.count("ARE-ACCEPTS") == 2, logs[-5000:]
    oracle_global = json.loads(logs.split("ARE-ACCEPTS ", 1)[1].splitlines()[0])
    assert oracle_global["macro_success_rate"] == 100.0, oracle_global
    assert oracle_global["total_runs"] == sum(RUNS_PER_PHASE.values()), oracle_global
    assert oracle_global["total_scenarios"] == 5 + 2 * len(MINI), oracle_global
