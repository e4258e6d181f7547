"""gaia2-runner: evaluate agents on Meta's Gaia2 benchmark, one container (podman or Docker) per scenario.

The host side only speaks the HTTP contract in docs/reference/container-contract.md, so any image that
honours it can be evaluated. The public API (imported lazily, so `import gaia2_runner` stays cheap):

    config = gaia2_runner.load_config("x.toml")            # or RunConfig / apply_overrides
    plan = gaia2_runner.plan_run(config)                   # every check that needs no engine
    outcome = gaia2_runner.run_plan(plan, observer=...)    # containers, results, summary.json
    result = gaia2_runner.run_scenario(path, image, out)   # one scenario, one container
    rows = gaia2_runner.load_rows("out/")                  # finished runs as rows (pandas, exports)
    merged = gaia2_runner.aggregate(out_root)              # shards (--shard I/N) into one result set
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_API = {
    "Gaia2Error": "gaia2_runner.errors",
    "RunConfig": "gaia2_runner.config",
    "load_config": "gaia2_runner.config",
    "apply_overrides": "gaia2_runner.config",
    "resolve_targets": "gaia2_runner.targets",
    "RunPlan": "gaia2_runner.execution.plan",
    "plan_run": "gaia2_runner.execution.plan",
    "run_plan": "gaia2_runner.execution.dataset_run",
    "DatasetOutcome": "gaia2_runner.execution.dataset_run",
    "RunObserver": "gaia2_runner.execution.observer",
    "run_scenario": "gaia2_runner.execution.scenario_run",
    "aggregate": "gaia2_runner.execution.aggregate",
    "ScenarioResult": "gaia2_runner.output.result",
    "summarize": "gaia2_runner.output.summary",
    "build_viewer": "gaia2_runner.viewer",
    "load_rows": "gaia2_runner.analysis",
    "compare": "gaia2_runner.analysis",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'gaia2_runner' has no attribute {name!r}")
    return getattr(import_module(module), "build" if name == "build_viewer" else name)
