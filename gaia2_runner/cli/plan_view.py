"""What `--dry-run` prints: the resolved plan, before anything starts.

Legible at 80 columns: names and numbers never wrap, long values (paths, URLs) fold."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text

from gaia2_contract.generation_time import FIXED, parse_generation_time
from gaia2_runner.config import redact_url_credentials
from gaia2_runner.config.defaults import DEFAULT_TIME_SPEED, DURATION_GRACE_S
from gaia2_runner.targets.filesystem_data import default_filesystem_dir
from gaia2_runner.text import printable

if TYPE_CHECKING:
    from gaia2_runner.config import RunConfig
    from gaia2_runner.targets.resolve import ScenarioRef


def describe_plan(config: RunConfig, refs: list[ScenarioRef], engine: str | None = None) -> Group:
    """Settings and scenario counts per split, so a dry run shows exactly what would start;
    `engine`: the engine line (engine_select.describe_engine: which, its version, and why)."""
    agent, run = config.agent, config.run
    settings = Table(title="gaia2-runner plan", show_header=False, title_justify="left")
    settings.add_column("setting", style="bold", no_wrap=True)
    settings.add_column("value", overflow="fold")  # long paths fold rather than lose their end
    target = config.target
    source = target.scenario or target.dataset_root or target.dataset
    timeout = f"{run.timeout:g}s" if run.timeout else f"scenario duration + {DURATION_GRACE_S:g}s"
    rows = [
        ("config", str(config.source) if config.source else "(flags only)"),
        ("target", f"{source}" + (f" @ {target.revision}" if target.revision else "")),
        ("selection", _selection(config)),
        ("image", agent.image + (f" (agent {agent.harness})" if agent.harness else "")),
        (
            "agent",
            agent.provider
            + (f" / {agent.model}" if agent.model else "")
            + (f" at {agent.base_url}" if agent.base_url else ""),
        ),
        ("judge", _judge_text(config)),
        ("runs", f"pass_at {run.pass_at}, concurrency {run.concurrency}, timeout {timeout}"),
        ("noise", "on (ARE's noise mode)" if run.noise else "off"),
        (
            "file data",
            str(target.filesystem_dir or default_filesystem_dir())
            + " (only for scenarios whose Files app needs it)",
        ),
        (
            "clock",
            "the oracle fast-forwards simulated time"
            if agent.provider == "oracle" and run.time_speed == DEFAULT_TIME_SPEED
            else f"simulated time x{run.time_speed:g} for agents"
            if run.time_speed != DEFAULT_TIME_SPEED
            else "ARE's real time for agents (x1)",
        ),
        ("output", str(run.output_dir)),
    ]
    if agent.provider != "oracle":  # the oracle calls no model: its clock is its own
        rows.insert(-1, ("model calls", _generation_text(run.sim_generation_time)))
    if run.shard:  # refs are already this shard's slice
        rows.append(
            (
                "shard",
                f"{run.shard}: its bookkeeping in {run.output_dir}/shards/{str(run.shard).replace('/', '-of-')}/",
            )
        )
    if engine is not None:  # beside the image it runs
        rows.insert([name for name, _ in rows].index("image") + 1, ("engine", engine))
    if run.hosts:
        rows.append(("hosts", ", ".join(map(str, run.hosts))))
    for name, value in rows:
        settings.add_row(name, Text(printable(redact_url_credentials(value))))
    return Group(settings, _per_split(refs))


def _judge_text(config: RunConfig) -> str:
    judge = config.judge
    if not judge.model:
        return "none (exact matches only)"
    return f"{judge.provider or 'openai'} / {judge.model}" + (
        f" at {judge.base_url}" if judge.base_url else ""
    )


def _per_split(refs: list[ScenarioRef]) -> Table:
    """Scenario counts per split, and the total."""
    per_split = Table(title="scenarios per split", title_justify="left")
    per_split.add_column("split", overflow="fold")
    per_split.add_column("scenarios", justify="right", no_wrap=True)
    for split, count in Counter(ref.split or "-" for ref in refs).items():
        per_split.add_row(Text(printable(split)), str(count))
    per_split.add_row("[bold]total", f"[bold]{len(refs)}")
    return per_split


def _generation_text(value: str) -> str:
    """--sim-generation-time (normalised by config/load.py) in the plan's words."""
    setting = parse_generation_time(value)
    if setting.mode == FIXED:
        return f"the clock holds during each, then advances {setting.seconds:g} s ({setting})"
    if setting.holds:
        return f"the clock holds during each, then advances by its duration ({setting})"
    return f"the clock runs on during each ({setting})"


def _selection(config: RunConfig) -> str:
    """Which scenarios of the target were asked for: splits, subset manifest, per-split limit."""
    target = config.target
    if target.scenario is not None:
        return "one scenario"
    parts = [f"splits {', '.join(target.splits)}" if target.splits else "splits all"]
    if target.config is not None or target.split is not None:  # a dataset in the original hub layout
        parts = [f"configs {', '.join(target.config or ['(default)'])}"] + (
            [f"hub split {target.split}"] if target.split else []
        )
    if target.subset is not None:
        parts.append(f"subset {target.subset}")
    if target.limit is not None:
        parts.append(f"at most {target.limit} per split")
    return "; ".join(parts)
