"""Red team: nothing leaks through the files an agent controls (issue 9).

A scripted agent (GAIA2_AGENT_COMMAND, the unprivileged agent user) plants symlinks and hard links
under every name the daemon collects from its $HOME, pointing at the judge's key (/proc/1/environ),
the scenario with its answers and the daemon's own environment, prints the secrets it holds (an
--env value; never the provider key, issue 21) and passes one as a tool argument, then exits
non-zero so that agent_error.txt is read too. Afterwards the whole
output tree, viewer pages included, must hold none of the keys, the judge settings or the answers.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.output.scrub import REDACTED
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.viewer import build

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(300)]

DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
AGENT_KEY = "sk-agent-FAKE-1234567890"
JUDGE_KEY = "sk-judge-FAKE-0987654321"
EXTRA_SECRET = "tok-extra-FAKE-5555555555"  # an `--env` value: a secret only because the plan says so
JUDGE_MODEL = "judge-model-FAKE-marker"  # not a secret: found only if /proc/1/environ leaked
ANSWER_MARKER = "GROUND-TRUTH-ONLY-4b7e1d"  # only the scenario file holds it (an oracle event)
NEVER = (AGENT_KEY, JUDGE_KEY, EXTRA_SECRET, JUDGE_MODEL, ANSWER_MARKER)

ATTACK = """
cd "$HOME"
echo "agent sees key=$GAIA2_AGENT_API_KEY extra=$MY_AGENT_TOKEN judge=${GAIA2_JUDGE_API_KEY:-unset}"
head -c 300 /proc/1/environ 2>&1 | tr '\\0' ' '; echo " <- direct environ read"
head -c 300 /gaia2/input/scenario.json 2>&1; echo " <- direct scenario read"
ln /gaia2/input/scenario.json hard-scenario 2>&1; ln /etc/shadow hard-shadow 2>&1; ln /proc/1/environ hard-environ 2>&1
ln -s TRACE_TARGET trace.jsonl
if ! ln ERROR_TARGET agent_error.txt 2>/dev/null; then ln -s ERROR_TARGET agent_error.txt; fi
ls -l "$HOME"
calendar add-event --title "key $MY_AGENT_TOKEN" --start-datetime '2024-10-03 14:00:00' \\
  --end-datetime '2024-10-03 15:00:00' >/dev/null
exit 3
"""

LEGIT = """
cd "$HOME"
printf '{"seq": 0, "type": "llm_call", "url": "http://x", "request": {"key": "%s"}, "response": {"ok": 1}}\\n' \\
  "$MY_AGENT_TOKEN" > trace.jsonl
echo "provider rejected key $MY_AGENT_TOKEN" > agent_error.txt
exit 3
"""


def _scenario(tmp_path: Path) -> Path:
    """The demo scenario with a marker in its oracle events, which only the scenario file holds."""
    doc = json.loads(DEMO.read_text())
    for event in doc["events"]:
        for arg in event["action"]["args"]:
            if event["event_type"] == "AGENT" and arg["name"] in ("description", "content"):
                arg["value"], arg["value_type"] = f"{arg['value'] or ''} {ANSWER_MARKER}", "str"
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(doc))
    return path


def _run(tmp_path: Path, script: str):
    env = {
        "GAIA2_AGENT_COMMAND": f"sh -c {shlex.quote(script)}",
        "GAIA2_AGENT_API_KEY": AGENT_KEY,
        "GAIA2_JUDGE_API_KEY": JUDGE_KEY,
        "GAIA2_JUDGE_MODEL": JUDGE_MODEL,
        "MY_AGENT_TOKEN": EXTRA_SECRET,
    }
    out = tmp_path / "out"
    result = run_scenario(_scenario(tmp_path), ORACLE_IMAGE, out, extra_env=env, secrets=[EXTRA_SECRET])
    build(out)
    return result, out, out / result.scenario_id


def _assert_clean(out: Path, never: tuple[str, ...] = NEVER) -> None:
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "trace.html" for p in files) and any(p.name == "index.html" for p in files)
    for path in files:
        data = path.read_bytes()
        for value in never:
            assert value.encode() not in data, f"{value} leaked into {path.relative_to(out)}"


@pytest.mark.both_engines
def test_planted_links_to_environ_and_scenario_leak_nothing(images, tmp_path: Path):
    """The one case run on both engines: Docker's /gaia2/input is a volume, podman's a directory."""
    check_planted_links(tmp_path, "/proc/1/environ", "/gaia2/input/scenario.json")


@pytest.mark.parametrize(
    "trace_target, error_target",
    [
        ("/gaia2/input/scenario.json", "/proc/1/environ"),
        ("/proc/self/environ", "/proc/1/cmdline"),
    ],
    ids=["scenario-environ", "self-environ"],
)
def test_planted_links_leak_nothing(images, tmp_path: Path, trace_target: str, error_target: str):
    check_planted_links(tmp_path, trace_target, error_target)


def check_planted_links(tmp_path: Path, trace_target: str, error_target: str) -> None:
    script = ATTACK.replace("TRACE_TARGET", trace_target).replace("ERROR_TARGET", error_target)
    result, out, scenario_out = _run(tmp_path, script)

    agent_log = (scenario_out / "agent.log").read_text()
    # No provider, so no relay: the agent holds no key at all (with one, only the run's placeholder).
    assert f"agent sees key= extra={REDACTED} judge=unset" in agent_log, agent_log
    assert "Permission denied" in agent_log  # the agent itself cannot read the environ nor the scenario
    assert "trace.jsonl -> " + trace_target in agent_log, "the links were planted"
    # The links were refused: no trace, no reason appended to the note (an exit is judged, never excused).
    assert result.status == "agent_exit" and result.success is False
    assert result.note.endswith("agent runtime exited with code 3 before the scenario ended"), result.note
    assert not (scenario_out / "trace.jsonl").exists()
    daemon_log = (scenario_out / "daemon.log").read_text()
    assert (
        "$HOME/trace.jsonl not collected" in daemon_log
        and "$HOME/agent_error.txt not collected" in daemon_log
    )
    # The secret the agent passed as a tool argument is in the events, scrubbed.
    assert f"key {REDACTED}" in (scenario_out / "events.jsonl").read_text()
    _assert_clean(out)


def test_regular_files_written_by_the_agent_are_collected_and_scrubbed(images, tmp_path: Path):
    result, out, scenario_out = _run(tmp_path, LEGIT)
    assert result.status == "agent_exit" and result.success is False
    assert result.note.endswith(f"code 3 before the scenario ended: provider rejected key {REDACTED}"), (
        result.note
    )
    saved = json.loads((out / result.scenario_id / "result.json").read_text())
    assert saved["note"] == result.note
    (line,) = (scenario_out / "trace.jsonl").read_text().splitlines()
    assert json.loads(line)["request"] == {"key": REDACTED}
    _assert_clean(out)


MIXED = """
cd "$HOME"
echo "key=$GAIA2_AGENT_API_KEY extra=$MY_AGENT_TOKEN"
ln -s /proc/1/environ trace.jsonl
echo "gave up with $MY_AGENT_TOKEN and $MY_AGENT_TOKEN" > agent_error.txt
exit 3
"""


def test_run_dataset_writes_and_prints_no_secret(images, tmp_path: Path):
    """The whole CLI path: --env values and keys from flags, results.jsonl, summary, pages, terminal."""
    split = tmp_path / "data" / "demo"
    split.mkdir(parents=True)
    _scenario(tmp_path).rename(split / "leak_probe.json")
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run-dataset",
            "--dataset-root",
            str(tmp_path / "data"),
            "--splits",
            "demo",
            "--image",
            ORACLE_IMAGE,
            "--output-dir",
            str(out),
            "--judge-model",
            JUDGE_MODEL,
            "--judge-api-key",
            JUDGE_KEY,
            "--env",
            f"GAIA2_AGENT_API_KEY={AGENT_KEY}",
            "--env",
            f"MY_AGENT_TOKEN={EXTRA_SECRET}",
            "--env",
            f"GAIA2_AGENT_COMMAND=sh -c {shlex.quote(MIXED)}",
        ],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr  # an agent that gives up is judged: a verdict
    for value in (AGENT_KEY, JUDGE_KEY, EXTRA_SECRET, ANSWER_MARKER):
        assert value not in proc.stdout + proc.stderr, value
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["success"] is False and record["status"] == "agent_exit"
    assert record["note"].endswith(
        f"code 3 before the scenario ended: gave up with {REDACTED} and {REDACTED}"
    )
    assert not (out / "demo" / record["scenario_id"] / "trace.jsonl").exists()
    assert (out / "summary.json").is_file() and (out / "run_config.json").is_file()
    build(out)
    # The judge model is a setting here (summary.json and run_config.json name it), not a leak.
    _assert_clean(out, tuple(v for v in NEVER if v != JUDGE_MODEL))
