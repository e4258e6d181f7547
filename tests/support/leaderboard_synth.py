"""A leaderboard output root written by hand (no container): ROOT/<phase>/run_<k>/<config>/ with
run_config.json holding each phase's settings and a result.json per run with a chosen verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia2_runner.config.setting import Setting
from gaia2_runner.execution.leaderboard_plan import setting_by_flag
from gaia2_runner.output import leaderboard_phases as phases
from viewer_synth import result_doc

# Verdicts by (phase, config) -> scenario -> one per run (None: an infrastructure error).
VERDICTS = {
    ("standard", "execution"): {"s1": [True, True, True], "s2": [False, True, None]},
    ("noise", "mini"): {"s3": [False, False, False]},
    ("agent2agent", "mini"): {"s3": [True, False, True]},
}


def flag_setting(flag: str) -> Setting:
    """The runner's setting behind `flag` (where run_config.json holds its value)."""
    found = setting_by_flag(flag)
    assert found is not None, flag
    return found


def leaderboard_root(
    root: Path, monkeypatch: pytest.MonkeyPatch, verdicts: dict = VERDICTS, hub_split: str | None = None
) -> Path:
    """One run-dataset output directory per phase, a split per config, as `leaderboard` writes them."""
    a2a, hub_config = flag_setting(phases.A2A_FLAG), flag_setting(phases.CONFIG_FLAG)
    by_name = {p.name: p for p in phases.PHASES}
    for (phase, config), scenarios in verdicts.items():
        runs = len(next(iter(scenarios.values())))
        settings = {
            "agent": {"provider": "openai-compat", "model": "m-1"},
            "judge": {},
            "run": {"noise": by_name[phase].noise},
            "target": {"split": hub_split} if hub_split else {},
        }
        settings.setdefault(a2a.section, {})[a2a.key] = by_name[phase].a2a_app_prop or None
        settings.setdefault(hub_config.section, {})[hub_config.key] = list(by_name[phase].configs)
        for k in range(1, runs + 1):
            run_dir = phases.phase_dir(root, phase) / f"run_{k}"
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "run_config.json").write_text(
                json.dumps(
                    {
                        "command": "leaderboard",
                        "pass_at": runs,
                        "run_index": k,
                        "config": settings,
                        "scenarios": [{"scenario_id": s, "split": config} for s in scenarios],
                    }
                )
            )
            for sid, outcome in scenarios.items():
                directory = run_dir / config / sid
                directory.mkdir(parents=True)
                (directory / "result.json").write_text(json.dumps(result_doc(sid, outcome[k - 1])))
    return root
