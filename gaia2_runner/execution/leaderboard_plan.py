"""From one configuration to the leaderboard's run-dataset jobs: one per phase, each the user's
settings plus what its phase sets (output/leaderboard_phases.py), all checked (targets,
keys, images named) before the first container starts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gaia2_runner.config import RunConfig, apply_overrides
from gaia2_runner.config.schema import SETTINGS, Setting
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.hosts import connect_first
from gaia2_runner.execution.plan import RunPlan, check_image, plan_run, refuse_other_setup
from gaia2_runner.output import leaderboard_phases as phases
from gaia2_runner.output.layout import has_results

COMMAND = "leaderboard"
# Settings every phase sets itself; by name where they are the runner's own, by flag where a
# feature of its own declares them (their names are its business).
OTHER_TARGETS = ("scenario", "dataset_root")
OWNED_NAMES = ("splits", "pass_at", "noise", "shard", *OTHER_TARGETS)
OWNED_FLAGS = (phases.CONFIG_FLAG, phases.A2A_FLAG, phases.SPLIT_FLAG)


def setting_by_flag(flag: str) -> Setting | None:
    return next((s for s in SETTINGS if s.flag == flag), None)


def owned_settings() -> list[str]:
    """Names of the settings a phase sets (the user may not)."""
    by_flag = [s.name for flag in OWNED_FLAGS if (s := setting_by_flag(flag)) is not None]
    return [*OWNED_NAMES, *by_flag]


@dataclass
class PhaseJob:
    """One phase: its run configuration and the plan run-dataset would make of it."""

    phase: phases.Phase
    config: RunConfig
    plan: RunPlan

    @property
    def label(self) -> str:
        return f"{self.phase.name} ({', '.join(self.phase.configs)})"


def _required(flag: str, why: str) -> Setting:
    setting = setting_by_flag(flag)
    if setting is None:
        raise Gaia2Error(f"this runner has no {flag} setting, which {why}: update gaia2-runner")
    return setting


def check_base(base: RunConfig) -> Path:
    """The output root; refuses what the phases set themselves and a target that is not the hub's."""
    for name in owned_settings():
        if name in base.origins and base.value(name) not in (None, False, [], ()):
            why = (
                "runs the hub dataset's configs (--dataset)"
                if name in OTHER_TARGETS
                else "sets it for each phase"
            )
            raise Gaia2Error(f"{base.where(name)}: leaderboard {why}: remove it")
    assert base.run.output_dir is not None  # validate() guarantees it
    return Path(base.run.output_dir)


def plan_phases(
    base: RunConfig, *, split: str, runs: int, retry: bool = False, overwrite: bool = False
) -> list[PhaseJob]:
    """Every phase's job, planned and checked, in ARE's order."""
    root = check_base(base)
    config_setting = _required(phases.CONFIG_FLAG, "picks the hub dataset's configs")
    split_setting = _required(phases.SPLIT_FLAG, "picks the hub dataset's split")
    a2a_setting = _required(phases.A2A_FLAG, "the agent2agent phase needs")
    jobs = []
    for phase in phases.PHASES:
        overrides = {
            config_setting.name: ",".join(phase.configs),
            split_setting.name: split,
            "pass_at": runs,
            "noise": phase.noise,
            a2a_setting.name: phase.a2a_app_prop or None,
            "output_dir": str(phases.phase_dir(root, phase.name)),
        }
        try:
            config = apply_overrides(base, overrides)
            plan = plan_run(config, retry=retry, command=COMMAND, overwrite=overwrite)
        except Gaia2Error as exc:
            raise Gaia2Error(f"phase {phase.name}: {exc}") from None
        jobs.append(PhaseJob(phase, config, plan))
    return jobs


def check_setups(jobs: list[PhaseJob]) -> None:
    """Before any phase runs: every phase directory holding results holds this setup's (the
    fingerprint check run-dataset makes), so a finished phase is never kept under another model
    and a later phase never refuses after the earlier ones ran. Needs podman (the image id), no
    container."""
    held = [job for job in jobs if has_results(job.plan.output_dir)]
    if not held:
        return
    with connect_first(held[0].config) as sandbox:
        for job in held:
            check_image(job.plan, sandbox)
            try:
                refuse_other_setup(job.plan, sandbox)
            except Gaia2Error as exc:
                raise Gaia2Error(f"phase {job.phase.name}: {exc}") from None
