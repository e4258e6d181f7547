"""Everything decided before a container starts: the scenarios, the jobs, the container variables.

`plan_run` needs no podman, so every mistake in a config or a scenario file is reported before
anything is started or written; `check_image` is the one check that needs the podman service.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from gaia2_contract import constants as contract
from gaia2_runner.config import HostSpec, RunConfig, Shard, secret_values
from gaia2_runner.config.limits import ContainerLimits
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env, idle_timeout
from gaia2_runner.execution.image_pin import ImagePin, pin_image, short_id
from gaia2_runner.execution.jobs import Job, Selection, all_jobs, holds_verdicts, select
from gaia2_runner.execution.shards import plan_identity, shard_refs
from gaia2_runner.output.fingerprint import differences, fingerprint, read_fingerprint, write_fingerprint
from gaia2_runner.output.layout import (
    FINGERPRINT_FILE,
    clear_outputs,
    has_results,
    record_dirs,
    run_dirs,
    scenario_dir,
    state_dir,
)
from gaia2_runner.sandbox.sandbox import Sandbox
from gaia2_runner.targets import ScenarioRef, resolve_targets


@dataclass(frozen=True)
class RunPlan:
    """A checked run: `env` holds secrets and is only ever given to containers; `secrets` are the
    values every written file is scrubbed of (output/scrub.py)."""

    config: RunConfig
    refs: list[ScenarioRef]
    env: dict[str, str] = field(repr=False)
    secrets: tuple[str, ...] = field(default=(), repr=False)
    retry: bool = False
    command: str = "run-dataset"
    fresh: bool = False  # run every job again (run, demo) instead of resuming
    overwrite: bool = False  # discard results of another setup found in the output directory
    shard: Shard | None = None  # `refs` is slice I of the N-way partition
    shard_info: dict | None = None  # execution/shards.py plan_identity, for run_config.json

    @property
    def output_dir(self) -> Path:
        assert self.config.run.output_dir is not None  # validate() guarantees it
        return Path(self.config.run.output_dir)

    @property
    def state_dir(self) -> Path:
        """Where summary.json, fingerprint.json and runner.log go: the output dir, or the shard's."""
        return state_dir(self.output_dir, self.shard)

    @property
    def record_dirs(self) -> list[Path]:
        """Where each repetition's results.jsonl and run_config.json go (output/layout.py)."""
        return record_dirs(self.output_dir, self.pass_at, self.shard)

    @property
    def hosts(self) -> tuple[HostSpec, ...]:
        """`[run] hosts`, slots resolved; empty: one host (CONTAINER_HOST …)."""
        return self.config.run.hosts

    @property
    def pass_at(self) -> int:
        return self.config.run.pass_at

    @property
    def run_dirs(self) -> list[Path]:
        return run_dirs(self.output_dir, self.pass_at)

    @property
    def concurrency(self) -> int:
        return self.config.run.concurrency

    @property
    def engine_wait(self) -> float:
        return self.config.run.engine_wait

    @property
    def limits(self) -> ContainerLimits:
        """What each scenario container may use ([run] memory, cpus, pids, disk; checked by validate)."""
        r = self.config.run
        return ContainerLimits.of(r.memory, r.cpus, r.pids, r.disk)

    @property
    def health_timeout(self) -> float:
        return self.config.run.health_timeout

    def jobs(self) -> list[Job]:
        return all_jobs(self.refs, self.run_dirs)

    def selection(self) -> Selection:
        """Which jobs run now and which keep their result (resume; --retry reruns infra errors)."""
        if self.fresh or self.overwrite:
            return Selection(todo=self.jobs())
        return select(self.jobs(), self.retry)


def plan_run(
    config: RunConfig,
    *,
    retry: bool = False,
    command: str = "run-dataset",
    fresh: bool = False,
    overwrite: bool = False,
    refs: list[ScenarioRef] | None = None,
) -> RunPlan:
    """Resolve the targets and check everything that needs no podman; raises Gaia2Error."""
    refs = resolve_targets(config.target) if refs is None else refs
    if not refs:
        raise Gaia2Error("no scenarios to run: check the target (scenario, dataset, splits, subset)")
    seen: dict[Path, str] = {}
    for ref in refs:
        directory = scenario_dir(Path("."), ref.split, ref.scenario_id)
        if directory in seen:
            raise Gaia2Error(
                f"scenario id {ref.scenario_id!r} appears twice ({seen[directory]} and "
                f"{ref.path}): every scenario needs its own output directory"
            )
        seen[directory] = str(ref.path)
    shard = config.run.shard
    shard_info = plan_identity(refs, shard, config.run.pass_at) if shard else None
    refs = shard_refs(refs, shard)
    env = container_env(config, os.environ)  # the run's settings, keys resolved: checked before any container
    idle_timeout()  # a bad GAIA2_IDLE_TIMEOUT stops the run here, not in every scenario
    if not config.agent.image:
        raise Gaia2Error("no image given: set [agent] image in the config or pass --image")
    return RunPlan(
        config,
        refs,
        env,
        secret_values(config, env),
        retry=bool(retry or config.run.retry),
        command=command,
        fresh=fresh,
        overwrite=overwrite,
        shard=shard,
        shard_info=shard_info,
    )


def check_image(plan: RunPlan, sandbox: Sandbox) -> None:
    image, harness = plan.config.agent.image, plan.config.agent.harness
    if not sandbox.image_exists(image):
        how = f"images build --agent {harness}" if harness else "images build"
        raise Gaia2Error(f"image {image} not found: build it (gaia2-runner {how}) or pull it")


@dataclass(frozen=True)
class FingerprintCheck:
    """How this plan's fingerprint compares with the one recorded in its output directory."""

    new: dict
    old: dict | None
    diffs: list[str]
    unverifiable: bool  # results there, but no fingerprint (an older runner wrote them)
    pin: ImagePin | None = None  # the image this run executes (execution/image_pin.py)

    @property
    def refused(self) -> bool:
        return bool(self.diffs) or self.unverifiable

    def describe(self) -> str:
        if self.unverifiable:
            return "results there have no fingerprint (written by an older gaia2-runner)"
        if self.old is None:
            return "new output directory"
        pin = self.pin
        if pin is not None and pin.gone:
            return (
                f"the image it started with, {short_id(pin.recorded)}, is gone ({pin.tag} now names "
                f"{short_id(pin.current)})"
            )
        if self.diffs:
            return f"differs: {'; '.join(self.diffs)}"
        kept = (
            f" (keeps its image {short_id(pin.recorded)}; {pin.tag} now names {short_id(pin.current)})"
            if pin is not None and pin.moved
            else ""
        )
        return "matches the results there" + kept


def compare_fingerprint(plan: RunPlan, sandbox: Sandbox) -> FingerprintCheck:
    """The recorded setup against this plan's; the image counts by the id the run pinned when it
    started, as long as that image exists (a rebuilt tag neither blocks nor changes a resumed run)."""
    paths = (plan.state_dir, plan.output_dir) if plan.shard is not None else (plan.output_dir,)
    olds = [doc for doc in map(read_fingerprint, paths) if doc]
    pin = pin_image(plan.config.agent.image, olds, sandbox, fresh=plan.overwrite)
    new = fingerprint(
        plan.config,
        image_id=pin.image_id,
        runtime=plan.env.get(contract.ENV_RUNTIME),
        scenarios=[(r.split, r.scenario_id, r.sha256) for r in plan.refs],
        engine=sandbox.engine,
    )
    if plan.shard is not None:
        return _compare_shard(plan, new, olds, pin)
    if not olds:
        return FingerprintCheck(new, None, [], unverifiable=has_results(plan.output_dir), pin=pin)
    return FingerprintCheck(new, olds[0], differences(olds[0], new), unverifiable=False, pin=pin)


def _compare_shard(plan: RunPlan, new: dict, olds: list[dict], pin: ImagePin) -> FingerprintCheck:
    """A shard answers to its own fingerprint and to the root's (an unsharded run or `aggregate`
    wrote it); without either, results already in its scenario directories are unverifiable."""
    if not olds:
        found = any(job.result_path.is_file() for job in plan.jobs())
        return FingerprintCheck(new, None, [], unverifiable=found, pin=pin)
    diffs = [d for old in olds for d in differences(old, new)]
    return FingerprintCheck(new, olds[0], list(dict.fromkeys(diffs)), unverifiable=False, pin=pin)


def refuse_other_setup(plan: RunPlan, sandbox: Sandbox) -> FingerprintCheck:
    """The fingerprint check; raises Gaia2Error when the output directory holds results of
    another setup (or its pinned image is gone) and nothing allows mixing or discarding them."""
    check = compare_fingerprint(plan, sandbox)
    assert check.pin is not None
    if check.pin.gone and not plan.overwrite:
        raise Gaia2Error(check.pin.gone_message(plan.output_dir))
    # --retry after a configuration fault (a wrong model or endpoint fixed): no verdict of the old
    # setup exists to be mixed with the new one, and every run reruns.
    fixed = plan.retry and not holds_verdicts(plan.jobs())
    if check.refused and not plan.overwrite and not fixed:
        raise Gaia2Error(
            f"{plan.output_dir} holds results of another setup ({check.describe()}): "
            "use a new --output-dir, or pass --overwrite to discard them"
        )
    return check


def claim_output_dir(plan: RunPlan, sandbox: Sandbox) -> ImagePin:
    """Refuse to mix results of different setups; with `overwrite`, discard the old ones first.
    Returns the image pin the run executes."""
    check = refuse_other_setup(plan, sandbox)
    if plan.overwrite and (check.old is not None or check.unverifiable):
        if plan.shard is None:
            clear_outputs(plan.output_dir)
        else:  # only this shard's part: the other shards' results stay
            for job in plan.jobs():
                shutil.rmtree(job.result_dir, ignore_errors=True)
            clear_outputs(plan.state_dir)
            (plan.output_dir / FINGERPRINT_FILE).unlink(missing_ok=True)
    write_fingerprint(plan.state_dir, check.new)
    assert check.pin is not None  # compare_fingerprint always pins the image
    return check.pin
