"""Real Gaia2 format on the host: Files data checks, the noise and filesystem_dir settings.

The Files walk is gaia2_contract/files_tree.py, the one both the runner and the daemon call.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_contract import constants as contract
from gaia2_contract import files_tree
from gaia2_runner.config import load_config, redacted
from gaia2_runner.config.load import apply_overrides
from gaia2_runner.config.schema import BY_KEY, BY_NAME
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env
from gaia2_runner.output.fingerprint import differences, fingerprint
from gaia2_runner.targets import filesystem_data as host
from gaia2_runner.targets import load_scenario

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FS_DATA = DATA / "gaia2_filesystem"
TWO = DATA / "real_format_two_messengers.json"
FILES = DATA / "real_format_files.json"
ESCAPE = DATA / "real_format_files_escape.json"
NEEDED = ["demo_filesystem/Documents/notes/meeting.txt", "demo_filesystem/Documents/report.txt"]


def _doc(path: Path = FILES) -> dict:
    return json.loads(path.read_text())


def _files_tree(doc: dict) -> dict:
    return next(a for a in doc["apps"] if a["name"] == "Files")["app_state"]["files"]


def test_scenario_files_list_the_data_they_need():
    assert load_scenario(FILES).data_files == tuple(NEEDED)
    two = load_scenario(TWO)
    assert two.data_files == () and two.duration is None  # duration: null is accepted


@pytest.mark.parametrize(
    "real_path",
    [
        "demo_filesystem/../../../etc/passwd",
        "/etc/passwd",
        "../secret.txt",
        "demo_filesystem/Documents/./report.txt",
        "demo_filesystem\\..\\x",
        "",
    ],
)
def test_real_path_leaving_the_data_dir_is_refused(tmp_path, real_path):
    doc = _doc()
    _files_tree(doc)["children"][0]["children"][1]["real_path"] = real_path
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(Gaia2Error, match="leaves the data directory: refused"):
        load_scenario(path)
    with pytest.raises(files_tree.FileTreeError, match="refused"):
        files_tree.data_files(doc)


def test_bundled_escape_scenario_is_refused():
    with pytest.raises(Gaia2Error, match=r"real_path 'demo_filesystem/\.\./\.\./\.\./etc/passwd'.*refused"):
        load_scenario(ESCAPE)


@pytest.mark.parametrize("name", ["..", "a/b", ".", "x\0y"])
def test_tree_names_that_are_not_plain_are_refused(name):
    doc = _doc()
    _files_tree(doc)["children"][0]["name"] = name
    with pytest.raises(files_tree.FileTreeError, match="not a plain name"):
        files_tree.data_files(doc)


def test_real_path_elsewhere_than_where_are_reads_is_refused():
    doc = _doc()
    _files_tree(doc)["children"][0]["children"][1]["real_path"] = "demo_filesystem/Other/report.txt"
    with pytest.raises(
        files_tree.FileTreeError,
        match=r"not where ARE reads that file \(demo_filesystem/Documents/report.txt\)",
    ):
        files_tree.data_files(doc)


def test_the_walk_lists_what_are_reads():
    doc = _doc()
    assert files_tree.data_files(doc) == NEEDED
    skipped = copy.deepcopy(doc)  # ARE's benchmark skips an app *named* SandboxLocalFileSystem
    next(a for a in skipped["apps"] if a["name"] == "Files")["name"] = "SandboxLocalFileSystem"
    assert files_tree.data_files(skipped) == []
    no_real_path = copy.deepcopy(doc)  # nodes without real_path need no data (ARE serves them empty)
    for node in _files_tree(no_real_path)["children"][0]["children"][1:]:
        del node["real_path"]
    assert files_tree.data_files(no_real_path) == NEEDED[:1]


def test_missing_files_and_links_leaving_the_dir(tmp_path):
    assert files_tree.missing_files(FS_DATA, NEEDED) == []
    data = tmp_path / "data" / "demo_filesystem" / "Documents"
    (data / "notes").mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    (data / "notes" / "meeting.txt").symlink_to(outside)  # a link out of the data dir is no data
    (data / "report.txt").write_text("ok")
    root = tmp_path / "data"
    assert files_tree.missing_files(root, NEEDED) == NEEDED[:1]
    assert files_tree.missing_files(tmp_path / "absent", NEEDED) == NEEDED


def test_ensure_files_names_what_is_missing_and_why(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the hub is unreachable here anyway; fail fast
    empty = tmp_path / "empty"
    with pytest.raises(Gaia2Error) as info:
        host.ensure_files(empty, NEEDED)
    message = info.value.message
    assert "2 of 2 file(s) the Files app needs are missing" in message
    assert str(empty) in message and NEEDED[0] in message and NEEDED[1] in message
    assert f"fetching {host.FILESYSTEM_DATASET} failed" in message and "\n" not in message
    assert host.ensure_files(FS_DATA, NEEDED) == FS_DATA.resolve()


def test_default_filesystem_dir_follows_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("GAIA2_CACHE_DIR", str(tmp_path))
    assert host.default_filesystem_dir() == tmp_path / "gaia2_filesystem"


def test_settings_table_has_noise_and_filesystem_dir(tmp_path):
    assert BY_NAME["noise"].flag == "--noise" and BY_KEY[("run", "noise")].kind == "bool"
    assert (
        BY_NAME["filesystem_dir"].flag == "--filesystem-dir"
        and BY_KEY[("target", "filesystem_dir")].kind == "path"
    )
    toml = tmp_path / "c.toml"
    toml.write_text(
        f'[target]\nscenario = "{TWO}"\nfilesystem_dir = "fs"\n[run]\nnoise = true\n'
        f'output_dir = "{tmp_path / "out"}"\n'
    )
    config = apply_overrides(load_config(toml), {})
    assert config.run.noise is True and config.target.filesystem_dir == tmp_path / "fs"
    assert container_env(config, {})[contract.ENV_NOISE] == "1"
    assert redacted(config)["run"]["noise"] is True  # run_config.json shows it
    quiet = apply_overrides(load_config(None), {"scenario": str(TWO), "output_dir": str(tmp_path / "o")})
    assert quiet.run.noise is False and contract.ENV_NOISE not in container_env(quiet, {})


def test_noise_is_part_of_the_fingerprint(tmp_path):
    base = apply_overrides(load_config(None), {"scenario": str(TWO), "output_dir": str(tmp_path)})
    noisy = apply_overrides(base, {"noise": True})
    off = fingerprint(base, image_id="sha256:x", runtime="oracle", scenarios=[])
    on = fingerprint(noisy, image_id="sha256:x", runtime="oracle", scenarios=[])
    assert "noise" not in off["settings"]  # results written before the setting existed still match
    assert differences(off, on) == ["noise null -> true"]
    assert differences(on, off) == ["noise true -> null"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CONTAINER_HOST": "unix:///nonexistent.sock"}
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_refuses_the_escape_scenario_before_podman(tmp_path):
    proc = _cli(
        "run",
        "--scenario",
        str(ESCAPE),
        "--image",
        "localhost/gaia2-oracle:latest",
        "--output-dir",
        str(tmp_path / "out"),
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and "refused" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def test_plan_and_report_show_noise(tmp_path):
    from rich.console import Console

    from gaia2_runner.cli.plan_view import describe_plan
    from gaia2_runner.cli.report_view import render_summary
    from gaia2_runner.output.summary import summarize
    from gaia2_runner.targets import scenario_ref

    config = apply_overrides(
        load_config(None),
        {"scenario": str(FILES), "output_dir": str(tmp_path), "noise": True, "filesystem_dir": str(FS_DATA)},
    )
    console = Console(width=200, record=True)
    console.print(describe_plan(config, [scenario_ref(FILES, None)]))
    plan = console.export_text()
    assert "noise" in plan and "on (ARE's noise mode)" in plan and str(FS_DATA) in plan
    console = Console(width=200, record=True)
    console.print(render_summary(summarize([], 1, 1.0, 0), noise=True))
    assert "noise: on (ARE's noise mode" in console.export_text()


def test_viewer_shows_the_name_an_agent_called_in_noise_mode(tmp_path):
    from gaia2_runner.viewer import Site

    sid = "real_format_two_messengers"
    out = tmp_path / sid
    out.mkdir()
    (out / "result.json").write_text(json.dumps({"scenario_id": sid, "success": True, "status": "completed"}))
    lines = [
        {
            "seq": 0,
            "kind": "tool_call",
            "app": "Chats",
            "function": "send_message",
            "tool": "Chats__post_chat_message",
            "args": {},
            "write": True,
            "ok": True,
            "result": None,
        },
        {
            "seq": 1,
            "kind": "tool_call",
            "app": "Messages",
            "function": "send_message",
            "tool": "Messages__send_message",
            "args": {},
            "write": True,
            "ok": True,
            "result": None,
        },
        {
            "seq": 2,
            "kind": "env_event",
            "app": "Chats",
            "function": "create_and_add_message",
            "event_id": "env-1",
            "event_type": "ENV",
            "args": {},
            "ok": True,
        },
    ]
    (out / "events.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    Site(tmp_path).refresh()
    page = (out / "trace.html").read_text()
    assert "Chats__send_message" in page and "called as Chats__post_chat_message" in page
    assert "Messages__send_message" in page and "called as Messages__send_message" not in page
    assert "Chats__create_and_add_message" in page
