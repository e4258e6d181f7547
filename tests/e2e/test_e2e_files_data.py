"""The Files app's bytes in real containers: served from the data directory, never empty by
accident, never a way out.

tests/data/real_format_files.json has a `Files` (SandboxLocalFileSystem) tree whose nodes name
their bytes with `real_path` into tests/data/gaia2_filesystem (the hub dataset's layout).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from container_probe import exec_in
from gaia2_contract import constants as contract
from gaia2_runner.execution.scenario_run import run_scenario
from gaia2_runner.sandbox.images import ORACLE_IMAGE
from gaia2_runner.targets import load_scenario

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(300)]

DATA = Path(__file__).resolve().parents[1] / "data"
SCENARIO = DATA / "real_format_files.json"
FS_DATA = DATA / "gaia2_filesystem"
MEETING = (FS_DATA / "demo_filesystem" / "Documents" / "notes" / "meeting.txt").read_text()
ANSWER = "The project sync is in room B-12 (second floor), Thursday at 10:00."


def _events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines() if line.strip()]


def test_oracle_passes_with_the_real_bytes(images, tmp_path: Path):
    result = run_scenario(SCENARIO, ORACLE_IMAGE, tmp_path, filesystem_dir=FS_DATA)
    out = tmp_path / result.scenario_id
    assert (result.status, result.success) == ("completed", True), (
        result.error,
        (out / "daemon.log").read_text(),
    )
    cat = next(e for e in _events(out) if e["kind"] == "tool_call" and e["tool"] == "Files__cat")
    assert cat["ok"] and cat["result"] == MEETING


# A hostile agent: reads the file the proper way, then tries every way around the Files app.
AGENT = r"""
import json, os, subprocess, urllib.request
base = os.environ["GAIA2_TOOLS_URL"]
def call(tool, **args):
    req = urllib.request.Request(base + "/call", json.dumps({"tool": tool, "args": args}).encode(),
                                 {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
print("TOOL", json.dumps(call("Files__cat", path="/Documents/notes/meeting.txt")))
print("CLI", subprocess.run(["cloud-drive", "cat", "--path", "/Documents/report.txt"],
                            capture_output=True, text=True).stdout)
for path in ("/../../../../etc/passwd", "../../../../gaia2/input/scenario.json",
             "/../../../gaia2/input/filesystem/demo_filesystem/Documents/report.txt"):
    print("ESCAPE", path, json.dumps(call("Files__cat", path=path)))
for path in ("/gaia2/input/filesystem/demo_filesystem/Documents/report.txt", "/gaia2/input/filesystem"):
    try:
        print("DIRECT", path, open(path).read() if not path.endswith("filesystem") else os.listdir(path))
    except OSError as exc:
        print("DIRECT", path, "refused", type(exc).__name__)
call("AgentUserInterface__send_message_to_user", content=os.environ["ANSWER"])
"""


def test_agent_reads_real_bytes_and_nothing_else(images, tmp_path: Path):
    command = f"/opt/gaia2/venv/bin/python3 -c {shlex.quote(AGENT)}"
    result = run_scenario(
        SCENARIO,
        ORACLE_IMAGE,
        tmp_path,
        filesystem_dir=FS_DATA,
        extra_env={"GAIA2_AGENT_COMMAND": command, "ANSWER": ANSWER},
    )
    out = tmp_path / result.scenario_id
    log = (out / "agent.log").read_text()
    assert (result.status, result.success) == ("completed", True), log
    tool = json.loads(next(line for line in log.splitlines() if line.startswith("TOOL "))[5:])
    # `text`: the app's result as ARE's own agent sees it (str() of the bytes the app returned).
    assert tool == {"ok": True, "result": MEETING, "text": str(MEETING.encode())}
    assert "Quarterly report draft" in log.split("CLI", 1)[1].split("ESCAPE", 1)[0]
    escapes = [line for line in log.splitlines() if line.startswith("ESCAPE ")]
    assert len(escapes) == 3
    for line in escapes:
        outcome = json.loads(line.split(" ", 2)[2])
        assert outcome["ok"] is False and "outside sandbox" in outcome["error"], line
    assert "root:" not in log and "oracle-read-notes" not in log  # neither /etc/passwd nor the answers
    direct = [line for line in log.splitlines() if line.startswith("DIRECT ")]
    assert len(direct) == 2 and all(line.endswith("refused PermissionError") for line in direct), direct


def test_missing_data_is_an_infrastructure_error_naming_the_file(images, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no hub here: the one fetch attempt fails fast
    empty = tmp_path / "empty-fs"
    empty.mkdir()
    result = run_scenario(SCENARIO, ORACLE_IMAGE, tmp_path / "out", filesystem_dir=empty)
    assert (result.status, result.success) == ("error", None)
    assert result.container_id is None  # refused before any container started
    assert "demo_filesystem/Documents/notes/meeting.txt" in result.error and str(empty) in result.error
    saved = json.loads((tmp_path / "out" / result.scenario_id / "result.json").read_text())
    assert saved["status"] == "error" and "meeting.txt" in saved["error"]


def test_daemon_refuses_missing_data_without_the_runners_check(images, sandbox, tmp_path: Path):
    """A runner that does not mount the data (another harness, an old runner): the daemon itself
    says what is missing instead of serving empty files."""
    scenario = load_scenario(SCENARIO)
    handle = sandbox.run_scenario_container(
        ORACLE_IMAGE, scenario.raw, {"GAIA2_RUNTIME": "oracle"}, scenario.scenario_id
    )
    try:
        from gaia2_runner.sandbox.adapter import AdapterClient, HealthFailed

        with AdapterClient(handle.base_url, handle.adapter_token) as client:
            with pytest.raises(HealthFailed) as info:
                client.wait_healthy(120, handle.is_running)
        assert "demo_filesystem/Documents/notes/meeting.txt" in str(info.value)
        assert "missing from the file data directory /gaia2/input/filesystem" in str(info.value)
    finally:
        handle.cleanup(timeout=2)


@pytest.mark.both_engines
def test_data_mount_is_read_only(images, sandbox, tmp_path: Path):
    scenario = load_scenario(SCENARIO)
    handle = sandbox.run_scenario_container(
        ORACLE_IMAGE,
        scenario.raw,
        {"GAIA2_RUNTIME": "none"},
        scenario.scenario_id,
        filesystem_dir=str(FS_DATA.resolve()),
    )
    try:
        target = f"{contract.FILESYSTEM_DIR}/demo_filesystem/Documents/report.txt"
        code, output = exec_in(sandbox, handle.id, ["sh", "-c", f"echo x >> {target}"], user="root")
        assert code != 0 and b"Read-only file system" in output, output
        code, output = exec_in(sandbox, handle.id, ["cat", target], user="agent")
        assert code != 0 and b"Permission denied" in output, output
        assert (FS_DATA / "demo_filesystem" / "Documents" / "report.txt").read_text().startswith("Quarterly")
    finally:
        handle.cleanup(timeout=2)
