"""--cost-limit end to end: real containers, the built-in agent, the scripted provider on the host,
prices from a GAIA2_PRICES file that declares the model's dated snapshots.

The run's model is a dated name ("fake-model-20250101") priced by its entry's `dated = true`; the
judge's model has no price and is accepted (its calls are not counted). The first run's tokens
cost more than the limit: the job stops launching, the summary says so and counts nothing unpriced.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calendar_demo import SCENARIO, SOLVE
from dataset_support import llm_on

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
HOST = "host.containers.internal"
# $1 a token: any run costs far more than the limit.
PRICES = '[models."fake-model"]\ninput = 1000000.0\noutput = 1000000.0\ndated = true\n'


def test_a_dated_model_priced_by_an_override_file_stops_the_job_at_the_cost_limit(
    images, fake, tmp_path
) -> None:
    fake.set_script({"chat": [{**SOLVE, "repeat": 40}]})
    prices = tmp_path / "prices.toml"
    prices.write_text(PRICES)
    out = tmp_path / "out"
    base = f"http://{HOST}:{fake.port}/v1"
    args = [
        "run-dataset",
        "--scenario",
        str(SCENARIO),
        *llm_on(base, "fake-model-20250101", judge_model="judge-without-a-price"),
        "--output-dir",
        str(out),
        "--timeout",
        "120",
        "--pass-at",
        "3",
        "--concurrency",
        "1",
        "--cost-limit",
        "5",
    ]
    env = {**os.environ, "COLUMNS": "200", "GAIA2_PRICES": str(prices)}
    proc = subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=800,
    )
    explain = (proc.stdout[-3000:], proc.stderr[-3000:])
    assert not [line for line in proc.stderr.splitlines() if line.startswith("error:")], explain
    runs = [json.loads(p.read_text()) for p in sorted(out.rglob("result.json"))]
    assert len(runs) == 1, explain  # the later runs never started
    assert list(runs[0]["provider"]["by_model"]) == ["fake-model-20250101"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped"]["kind"] == "cost_limit", summary
    assert summary["stopped"]["reason"].startswith("stopped at cost limit: the finished runs cost $")
    assert (
        summary["cost_usd"] > 5 and summary["cost_unpriced_models"] == [] and summary["cost_limit_usd"] == 5
    )
    assert "stopped at cost limit" in proc.stdout
