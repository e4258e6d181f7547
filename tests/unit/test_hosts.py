"""`[run] hosts` / `--host` without podman: parsing, one-line errors, slots spread over hosts.
tests/e2e/test_hosts_e2e.py runs two real podman services and stops one mid-run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_runner.config import HostSpec, apply_overrides, load_config
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.hosts import Host, slot_order

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "scenarios" / "demo_cab_order.json"
CLI = [sys.executable, "-m", "gaia2_runner.cli"]


def test_hosts_from_toml_with_slots_and_the_concurrency_default(tmp_path):
    config_file = tmp_path / "x.toml"
    config_file.write_text(
        f'[target]\nscenario = "{DEMO}"\n[run]\noutput_dir = "out"\nconcurrency = 2\n'
        'hosts = ["unix:///run/a.sock=3", "ssh://me@node2/run/podman/podman.sock"]\n'
    )
    config = apply_overrides(load_config(config_file), {})
    assert [(h.url, h.slots) for h in config.run.hosts] == [
        ("unix:///run/a.sock", 3),
        ("ssh://me@node2/run/podman/podman.sock", 2),
    ]
    # --host replaces the file's list; no --host keeps it.
    assert apply_overrides(config, {"hosts": ["tcp://h:8080"]}).run.hosts == (HostSpec("tcp://h:8080", 2),)
    assert apply_overrides(config, {"hosts": []}).run.hosts == config.run.hosts


@pytest.mark.parametrize(
    "hosts, fragment",
    [
        (["/run/a.sock"], "is not an engine API URL"),
        (["unix://"], "is not an engine API URL"),
        (["unix:///a.sock=0"], "slots must be 1 to 256"),
        (["unix:///a.sock=999"], "slots must be 1 to 256"),
        (["unix:///a.sock", "unix:///a.sock=2"], "listed twice"),
        (["ssh://me:hunter2@node/run/podman/podman.sock"], "has a password in its URL"),
    ],
)
def test_bad_hosts_are_one_line_naming_the_key(tmp_path, hosts, fragment):
    config_file = tmp_path / "x.toml"
    listed = ", ".join(f'"{h}"' for h in hosts)
    config_file.write_text(f'[target]\nscenario = "{DEMO}"\n[run]\noutput_dir = "out"\nhosts = [{listed}]\n')
    with pytest.raises(Gaia2Error) as caught:
        apply_overrides(load_config(config_file), {})
    assert "[run] hosts" in caught.value.message and fragment in caught.value.message
    proc = subprocess.run(
        [
            *CLI,
            "run-dataset",
            "--scenario",
            str(DEMO),
            "--output-dir",
            str(tmp_path / "o"),
            *[arg for h in hosts for arg in ("--host", h)],
            "--dry-run",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("error: --host") and fragment in proc.stderr


def test_a_toml_hosts_value_of_the_wrong_type(tmp_path):
    config_file = tmp_path / "x.toml"
    config_file.write_text(
        f'[target]\nscenario = "{DEMO}"\n[run]\noutput_dir = "out"\nhosts = "unix:///a.sock"\n'
    )
    with pytest.raises(Gaia2Error, match=r"x.toml:5 \[run\] hosts: expected a list of engine API URLs"):
        load_config(config_file)


def test_slots_interleave_hosts_so_first_runs_spread():
    a, b = Host("unix:///a", 3, None, own=False), Host("unix:///b", 1, None, own=False)  # type: ignore[arg-type]
    assert [h.url for h in slot_order([a, b])] == ["unix:///a", "unix:///b", "unix:///a", "unix:///a"]
