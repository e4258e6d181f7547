"""One poison scenario never stops the others: ids that cannot be directory names, a scenario ARE
rejects, all in one queue at concurrency 1, in real containers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dataset_support import oracle_dataset
from gaia2_runner.output.layout import scenario_dir_name

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
GOOD = REPO / "examples" / "scenarios" / "demo_calendar_add_event.json"
REJECTED = REPO / "tests" / "data" / "are_tutorial_scenario.json"  # valid JSON, not a Gaia2 scenario
ODD_IDS = [
    "x" * 300,
    "../../escape/attempt",
    "bad\udc80surrogate",
    "nul\u0000inside",
    "café-日本-✓",
    "a/b\\c:d",
]


def test_poison_scenarios_do_not_stop_the_queue(images, tmp_path: Path) -> None:
    split = tmp_path / "data" / "demo"
    split.mkdir(parents=True)
    doc = json.loads(GOOD.read_text())
    (split / "0_normal.json").write_text(GOOD.read_text())
    for n, odd in enumerate(ODD_IDS, start=1):
        doc["metadata"]["definition"]["scenario_id"] = odd
        (split / f"{n}_odd.json").write_text(json.dumps(doc))  # escapes keep the file valid UTF-8
    (split / "9_rejected.json").write_text(REJECTED.read_text())
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            *oracle_dataset(tmp_path / "data", out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the rejected one has no verdict
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == len(ODD_IDS) + 2  # every scenario has a result
    by_id = {r["scenario_id"]: r for r in records}
    assert by_id["demo_calendar_add_event"]["success"] is True
    rejected = [r for r in records if r["scenario_id"] not in ODD_IDS + ["demo_calendar_add_event"]]
    assert len(rejected) == 1 and rejected[0]["success"] is None and rejected[0]["status"] == "error"
    for odd in ODD_IDS:
        assert odd in by_id, odd
        directory = out / "demo" / scenario_dir_name(odd)
        assert directory.is_dir() and directory.parent == out / "demo", odd
        assert (directory / "result.json").is_file()
    # Everything stayed inside the output directory, and names are unique and safe.
    names = sorted(p.name for p in (out / "demo").iterdir())
    assert len(names) == len(set(names)) == len(ODD_IDS) + 2
    assert not (tmp_path / "escape").exists()
    assert all(len(name) <= 100 and "/" not in name for name in names)
