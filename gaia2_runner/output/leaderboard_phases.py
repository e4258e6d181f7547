"""The phases of a Gaia2 leaderboard entry, as ARE's `gaia2-run` defines them
(are/simulation/benchmark/gaia2_submission.py), and where each one's runs go.

`standard` runs the five capability configs; `agent2agent` runs `mini` with every app behind an
expert agent (a2a_app_prop 1.0); `noise` runs `mini` with ARE's noise (ToolAugmentationConfig()
and 10 ENV events a minute, seed 0: our `noise` setting, daemon/loader.py). Each phase is one
ordinary run-dataset output directory, ROOT/<phase>/, with run_1/ … run_3/ inside and a split per
config (the hub layout's configs are our splits), so `ls`, `view`, `judge` and `export` read it as
any other run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_runner.targets.hub_layout import CAPABILITY_CONFIGS
from gaia2_runner.targets.hub_layout import MINI_CONFIG as MINI

STANDARD, AGENT2AGENT, NOISE = "standard", "agent2agent", "noise"
# ARE's config-name suffixes of the upload (hf_config_utils.create_config_name).
PHASE_SUFFIX = {STANDARD: "", AGENT2AGENT: "_a2a", NOISE: "_noise"}

# The settings a phase sets, found by their flags (config/schema.py owns them; the dataset config,
# Agent2Agent and simulated generation time are declared there by their own features).
CONFIG_FLAG = "--config"
SPLIT_FLAG = "--split"
A2A_FLAG = "--a2a-app-prop"


@dataclass(frozen=True)
class Phase:
    """One phase: its configs and the augmentation it runs them with."""

    name: str
    configs: tuple[str, ...]
    a2a_app_prop: float = 0.0
    noise: bool = False


PHASES: tuple[Phase, ...] = (
    Phase(STANDARD, CAPABILITY_CONFIGS),
    Phase(AGENT2AGENT, (MINI,), a2a_app_prop=1.0),
    Phase(NOISE, (MINI,), noise=True),
)
PHASE_NAMES = tuple(p.name for p in PHASES)


def phase_name(a2a_app_prop: float | None, noise: bool) -> str:
    """The phase a run belongs to by its settings: Agent2Agent wins over noise (ARE has no phase
    with both; a run with both is reported as agent2agent, its has_*_noise columns still true)."""
    if a2a_app_prop:
        return AGENT2AGENT
    return NOISE if noise else STANDARD


def upload_config_name(config: str, phase: str) -> str:
    """The upload's config (directory) name: `mini_a2a`, `mini_noise`, `execution`."""
    return config + PHASE_SUFFIX.get(phase, f"_{phase}")


def phase_dir(root: Path, phase: str) -> Path:
    """The run-dataset output directory of one phase."""
    return root / phase


def phase_dirs(root: Path) -> list[tuple[str, Path]]:
    """(phase, directory) of every phase directory present under `root`, in phase order."""
    return [(p.name, phase_dir(root, p.name)) for p in PHASES if phase_dir(root, p.name).is_dir()]


def is_leaderboard_root(path: Path) -> bool:
    """A directory `leaderboard` wrote into: a phase directory under it."""
    return bool(phase_dirs(path))


def run_settings(config_doc: dict[str, Any], section: str, key: str) -> Any:
    """A value of run_config.json's `config` (a setting by its section and key), None when absent."""
    return ((config_doc or {}).get(section) or {}).get(key)
