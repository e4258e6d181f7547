"""Everything decided before a container starts: the scenarios, the jobs, the container variables.

`plan_run` needs no podman, so every mistake in a config or a scenario file is reported before
anything is started or written; `check_image` is the one check that needs the podman service.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from gaia2_runner.config import RunConfig, container_env
from gaia2_runner.engine.jobs import Job, Selection, all_jobs, select
from gaia2_runner.engine.scenario_run import idle_timeout
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.layout import run_dirs, scenario_dir
from gaia2_runner.sandbox.podman import PodmanBackend
from gaia2_runner.targets import ScenarioRef, resolve_targets

DEFAULT_HEALTH_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RunPlan:
    """A checked run: `env` holds secrets and is only ever given to containers."""

    config: RunConfig
    refs: list[ScenarioRef]
    env: dict[str, str] = field(repr=False)
    retry: bool = False
    command: str = "run-dataset"
    fresh: bool = False  # run every job again (run, demo) instead of resuming

    @property
    def output_dir(self) -> Path:
        assert self.config.run.output_dir is not None  # validate() guarantees it
        return Path(self.config.run.output_dir)

    @property
    def pass_at(self) -> int:
        return max(1, int(self.config.run.pass_at or 1))

    @property
    def run_dirs(self) -> list[Path]:
        return run_dirs(self.output_dir, self.pass_at)

    @property
    def concurrency(self) -> int:
        return max(1, int(self.config.run.concurrency or 1))

    @property
    def health_timeout(self) -> float:
        return float(self.config.run.health_timeout or DEFAULT_HEALTH_TIMEOUT_S)

    def jobs(self) -> list[Job]:
        return all_jobs(self.refs, self.run_dirs)

    def selection(self) -> Selection:
        """Which jobs run now and which keep their result (resume; --retry reruns infra errors)."""
        if self.fresh:
            return Selection(todo=self.jobs())
        return select(self.jobs(), self.retry)


def plan_run(config: RunConfig, *, retry: bool = False, command: str = "run-dataset", fresh: bool = False,
             refs: list[ScenarioRef] | None = None) -> RunPlan:
    """Resolve the targets and check everything that needs no podman; raises Gaia2Error."""
    refs = resolve_targets(config.target) if refs is None else refs
    if not refs:
        raise Gaia2Error("no scenarios to run: check the target (scenario, dataset, splits, subset)")
    seen: dict[Path, str] = {}
    for ref in refs:
        directory = scenario_dir(Path("."), ref.split, ref.scenario_id)
        if directory in seen:
            raise Gaia2Error(f"scenario id {ref.scenario_id!r} appears twice ({seen[directory]} and "
                             f"{ref.path}): every scenario needs its own output directory")
        seen[directory] = str(ref.path)
    env = container_env(config, os.environ)
    idle_timeout()  # a bad GAIA2_IDLE_TIMEOUT stops the run here, not in every scenario
    if not config.agent.image:
        raise Gaia2Error("no image given: set [agent] image in the config or pass --image")
    return RunPlan(config, refs, env, retry=bool(retry or config.run.retry), command=command, fresh=fresh)


def check_image(plan: RunPlan, backend: PodmanBackend) -> None:
    image = plan.config.agent.image
    if not backend.image_exists(image):
        raise Gaia2Error(f"image {image} not found: build it (gaia2-runner images build) or pull it")
