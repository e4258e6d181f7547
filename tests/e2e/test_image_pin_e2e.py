"""A run pins its image by id: a rebuilt `:latest` neither changes what a resumed run executes nor
blocks `--retry`; a pinned image that is gone is one error line with the way out (--overwrite).

Real podman, real images: two small images built FROM the oracle image, each with its own marker
file, and one tag moved from the first to the second between invocations (as a rebuild does). The
agent prints the marker, so agent.log says which image a scenario really ran in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_support import demo_split
from gaia2_runner.sandbox.images import ORACLE_IMAGE, ImageSpec, build_image

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

SCENARIOS = ("demo_calendar_add_event", "demo_contacts_update_phone", "demo_messaging_send")
TAG = "localhost/gaia2-pin-test:latest"
MARKER = "/etc/gaia2-pin-marker"
AGENT = f"GAIA2_AGENT_COMMAND=cat {MARKER}"


def podman(*args: str) -> str:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def build_marked(sandbox, tmp_path: Path, name: str) -> str:
    """An image FROM the oracle image with MARKER holding `name`; returns its id. Built as the
    runner builds its own (`build_image`: it also builds again when podman kills a RUN step itself)."""
    context = tmp_path / f"ctx-{name}"
    context.mkdir()
    (context / "Containerfile").write_text(f"FROM {ORACLE_IMAGE}\nRUN echo image-{name} > {MARKER}\n")
    build_image(sandbox, ImageSpec(f"localhost/gaia2-pin-test-{name}:latest", "Containerfile", {}), context)
    return podman("image", "inspect", "--format", "{{.Id}}", f"localhost/gaia2-pin-test-{name}:latest")


def run_dataset(root: Path, out: Path, limit: int, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gaia2_runner.cli",
            "run-dataset",
            "--dataset-root",
            str(root),
            "--splits",
            "demo",
            "--limit",
            str(limit),
            "--image",
            TAG,
            "--env",
            AGENT,
            "--output-dir",
            str(out),
            "--concurrency",
            "1",
            "--no-sweep",
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env=os.environ.copy(),
    )


def marker_of(out: Path, scenario: str) -> str:
    return (out / "demo" / scenario / "agent.log").read_text()


@pytest.fixture
def marked_images(images, sandbox, tmp_path):
    ids = {name: build_marked(sandbox, tmp_path, name) for name in ("a", "b")}
    yield ids
    for ref in (TAG, "localhost/gaia2-pin-test-a:latest", "localhost/gaia2-pin-test-b:latest"):
        subprocess.run(["podman", "rmi", "--force", ref], capture_output=True, timeout=120)


def test_a_retagged_latest_changes_nothing_a_run_started_with(marked_images, tmp_path):
    root = demo_split(tmp_path / "dataset", SCENARIOS)
    out = tmp_path / "out"
    ids = marked_images

    podman("tag", ids["a"], TAG)
    first = run_dataset(root, out, 1)
    assert first.returncode == 0, first.stdout + first.stderr
    ran = sorted(p.name for p in (out / "demo").iterdir() if (p / "result.json").is_file())
    assert len(ran) == 1 and "image-a" in marker_of(out, ran[0])
    assert json.loads((out / "run_config.json").read_text())["image_id"] == ids["a"]

    podman("tag", ids["b"], TAG)  # as a rebuild of :latest does
    resumed = run_dataset(root, out, 2, "--retry")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "keeps running the image it started with, " + ids["a"][:12] in " ".join(resumed.stderr.split())
    second = next(
        p.name for p in (out / "demo").iterdir() if p.name not in ran and (p / "result.json").is_file()
    )
    assert "image-a" in marker_of(out, second)  # the pinned image ran, not what the tag names now
    record = json.loads((out / "run_config.json").read_text())
    assert record["image_id"] == ids["a"] and record["image"] == TAG
    assert json.loads((out / "demo" / second / "result.json").read_text())["image"] == TAG

    # The pinned image is gone: one line, naming both ids and the way out; nothing ran.
    podman("rmi", "--force", "localhost/gaia2-pin-test-a:latest")
    assert subprocess.run(["podman", "image", "exists", ids["a"]]).returncode == 1
    refused = run_dataset(root, out, 3)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), refused.stderr
    assert ids["a"][:12] in lines[0] and ids["b"][:12] in lines[0] and "--overwrite" in lines[0]
    assert len([p for p in (out / "demo").iterdir() if (p / "result.json").is_file()]) == 2

    fresh = run_dataset(root, out, 3, "--overwrite")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert all("image-b" in marker_of(out, name) for name in SCENARIOS)
    assert json.loads((out / "run_config.json").read_text())["image_id"] == ids["b"]
