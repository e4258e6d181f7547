"""Red team: a rerun into an output directory never mixes results of another setup silently."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gaia2_runner.config import AGENT_IMAGE, ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.redteam, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "examples" / "scenarios" / "demo_calendar_add_event.json"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def run(root: Path, out: Path, image: str, *extra: str) -> subprocess.CompletedProcess:
    return cli("run-dataset", "--dataset-root", str(root), "--image", image, "--output-dir", str(out), *extra)


def test_rerun_with_another_setup_is_refused_before_anything_starts(
    images, tmp_path: Path, demo_dataset
) -> None:
    root = demo_dataset([SCENARIO.stem]) / "demo"
    out = tmp_path / "out"
    first = run(root.parent, out, ORACLE_IMAGE)
    assert first.returncode == 0, first.stdout + first.stderr
    before = (out / "results.jsonl").read_text()
    finger = json.loads((out / "fingerprint.json").read_text())
    assert finger["settings"]["image"] == ORACLE_IMAGE and finger["settings"]["image_id"]

    # Another image (its own content id), another time limit: refused, one line, nothing written.
    for extra in ((AGENT_IMAGE,), (ORACLE_IMAGE, "--timeout", "99")):
        refused = run(root.parent, out, *extra)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        lines = [ln for ln in refused.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and "another setup" in lines[0]
        assert "--overwrite" in lines[0] and "Traceback" not in refused.stderr
        assert (out / "results.jsonl").read_text() == before
    assert "image " in refused.stderr or "timeout" in refused.stderr

    plan = run(root.parent, out, AGENT_IMAGE, "--dry-run")
    assert plan.returncode == 0 and "differs: image" in plan.stdout, plan.stdout

    # The same scenario id with other content is another scenario.
    doc = json.loads(SCENARIO.read_text())
    doc["events"] = doc["events"][:-1]
    (root / SCENARIO.name).write_text(json.dumps(doc))
    changed = run(root.parent, out, ORACLE_IMAGE)
    assert changed.returncode == 2 and "scenario file changed: demo/demo_calendar_add_event" in changed.stderr
    shutil.copy(SCENARIO, root / SCENARIO.name)

    # Resuming the same setup is fine, and --overwrite starts over with the new one.
    same = run(root.parent, out, ORACLE_IMAGE)
    assert same.returncode == 0 and (out / "results.jsonl").read_text() == before
    again = run(root.parent, out, AGENT_IMAGE, "--overwrite")
    assert again.returncode == 0, again.stdout + again.stderr
    (line,) = (out / "results.jsonl").read_text().splitlines()
    assert json.loads(line)["image"] == AGENT_IMAGE and json.loads(line)["success"] is True
    assert json.loads((out / "fingerprint.json").read_text())["settings"]["image"] == AGENT_IMAGE
