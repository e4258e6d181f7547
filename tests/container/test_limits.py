"""Limits without containers: sizes, checks, container options, capped streams and logs."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from gaia2_container.daemon.agent.output_caps import CappedAgentLog, LogBudget  # noqa: E402
from gaia2_runner.config.limits import DEFAULT_LIMITS, ContainerLimits, GiB, MiB, parse_size
from gaia2_runner.output.artifacts import extract_output
from gaia2_runner.sandbox.container_limits import limit_options, tmpfs_mounts, tmpfs_places
from gaia2_runner.sandbox.streams import ChunkReader, read_capped


@pytest.mark.parametrize(
    "text,size",
    [("4g", 4 * GiB), ("512m", 512 * MiB), ("1.5GiB", 3 * GiB // 2), ("2048MB", 2 * GiB), ("1024", 1024)],
)
def test_sizes_parse_in_binary_units(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "", "-1g", "0", "4x"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_the_defaults_can_work_and_memory_must_hold_the_files():
    assert DEFAULT_LIMITS.problem() is None
    name, why = ContainerLimits.of(memory="2g").problem()
    assert name == "memory" and "raise memory" in why and "lower disk" in why
    assert ContainerLimits.of(pids=5).problem()[0] == "pids"
    assert ContainerLimits.of(cpus=0).problem()[0] == "cpus"


def test_container_options_bound_memory_cpu_pids_and_every_writable_place():
    limits = ContainerLimits.of(memory="6g", cpus=1.5, pids=300, disk="2g")
    options = limit_options(limits)
    assert options["mem_limit"] == options["memswap_limit"] == 6 * GiB
    assert (options["cpu_quota"], options["cpu_period"], options["pids_limit"]) == (150_000, 100_000, 300)
    assert options["read_only"] is True
    assert options["cap_add"] == ["SYS_RESOURCE", "NET_ADMIN"] and options["no_new_privileges"] is True
    mounts = {m["target"]: m for m in tmpfs_mounts(tmpfs_places(limits))}
    assert int(mounts["/gaia2/agent"]["size"]) == int(mounts["/tmp"]["size"]) == 2 * GiB
    assert mounts["/tmp"]["mode"] == "1777"
    assert "/gaia2/output" not in mounts  # a volume (Containerfile.base): it must outlive the container
    assert all(m["type"] == "tmpfs" and int(m["size"]) > 0 for m in mounts.values())


def test_the_cli_takes_limits_from_flags_and_names_a_bad_one(tmp_path):
    scenario = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "demo_calendar_add_event.json"
    base = [
        sys.executable,
        "-m",
        "gaia2_runner",
        "run",
        "--agent",
        "oracle",
        "--scenario",
        str(scenario),
        "--output-dir",
        str(tmp_path / "out"),
        "--dry-run",
        "--no-preflight",
    ]
    bad = subprocess.run([*base, "--disk", "lots"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "error: --disk: 'lots' is not a size: write e.g. 4g, 512m or 1.5GiB"
    ], bad.stderr
    (tmp_path / "run.toml").write_text(
        f'[target]\nscenario = "{scenario}"\n[run]\nmemory = "2g"\n'
        f'output_dir = "{tmp_path / "out"}"\npreflight = false\n'
    )
    toml = subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner",
            "run-config",
            "--config",
            str(tmp_path / "run.toml"),
            "--dry-run",
        ],
        capture_output=True,
        text=True,
    )
    assert "run.toml:4 [run] memory: memory (2 GiB) must hold the container's files too" in toml.stderr, (
        toml.stderr
    )


def _tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_an_archive_is_extracted_as_it_streams_and_stops_at_its_cap(tmp_path):
    data = _tar({"output/a.txt": b"a" * 5000, "output/b.txt": b"b" * 50_000})
    chunks = [data[i : i + 1000] for i in range(0, len(data), 1000)]
    done = extract_output(ChunkReader(iter(chunks)), tmp_path / "all")
    assert sorted(p.name for p in done.written) == ["a.txt", "b.txt"] and not done.skipped
    capped = extract_output(ChunkReader(iter(chunks), cap=20_000), tmp_path / "capped")
    assert [p.name for p in capped.written] == ["a.txt"]
    assert "larger than 20000 bytes" in capped.skipped[0]
    assert (
        read_capped(iter([b"x" * 10] * 5), 25).data == b"x" * 25
        and read_capped([b"ab"], 2).truncated is False
    )


def test_agent_output_past_the_cap_is_read_dropped_and_marked(tmp_path):
    log_path = tmp_path / "agent.log"
    capped = CappedAgentLog(log_path, cap=1000)
    proc = subprocess.Popen(
        [sys.executable, "-c", "import os\nfor _ in range(100): os.write(1, b'y' * 999 + b'\\n')"],
        stdout=capped.write_fd,
        stderr=subprocess.STDOUT,
    )
    capped.close_writer()
    assert proc.wait(timeout=30) == 0  # never blocked on a full pipe
    assert capped.done.wait(30)
    text = log_path.read_text()
    assert text[:1000] == "y" * 999 + "\n" and text[1000:].startswith(
        "\n[gaia2]"
    )  # the first 1000 bytes only
    assert "[gaia2] agent.log truncated at 1000 bytes" in text and "99000 bytes discarded" in text


def test_daemon_log_lines_are_cut_and_stop_at_the_budget():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(LogBudget(cap=20_000))
    logger = logging.getLogger("test-limits-budget")
    logger.addHandler(handler)
    logger.propagate = False
    for _ in range(50):
        logger.warning("%s", "z" * 10_000)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 5 and all(len(line) < 4100 for line in lines)
    assert lines[-1].startswith("[gaia2] log truncated at 20000 bytes")
    assert os.environ  # (no global state left: the logger is private to this test)
