"""What ran, for every row of a run: agent kind, model, provider, judge, image digest and runner
version, read from the run directory's run_config.json, else fingerprint.json at the root.

Read once per run directory and kept while those files are unchanged (the viewer asks for every
scenario page), as hostile files: only short strings of the expected type are taken.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia2_contract import providers
from gaia2_runner.output.agent_kind import ORACLE, agent_kind, command_in_settings
from gaia2_runner.output.layout import FINGERPRINT_FILE, RUN_CONFIG_FILE, run_dir_name

from .run_files import first_run_config, json_object
from .safe_io import RUN_CONFIG_CAP

MAX_LABEL = 200  # characters kept of one label
_CACHE_SIZE = 64  # run directories remembered (a pass@k tree has k)


@dataclass(frozen=True)
class RunLabels:
    """`agent`: oracle, llm, are-default, a harness name or custom (output/agent_kind.py);
    `judge`: "provider/model"; `image_id`: the image's content id the run is pinned to."""

    agent: str | None = None
    model: str | None = None
    provider: str | None = None
    judge: str | None = None
    image_id: str | None = None
    runner_version: str | None = None


def labels_from(run_config: dict[str, Any] | None, fingerprint: dict[str, Any] | None) -> RunLabels:
    """The labels from a run_config.json document, what it lacks from a fingerprint.json one."""
    record = run_config or {}
    config = _dict(record.get("config"))
    agent, judge = _dict(config.get("agent")), _dict(config.get("judge"))
    settings = _dict((fingerprint or {}).get("settings"))
    kind = _str(record.get("agent_kind"))
    if kind is None and (agent or settings):  # written before agent_kind was recorded
        source = agent or {
            "provider": settings.get("provider"),
            "runtime": settings.get("runtime"),
            "env": settings.get("agent_env"),
        }
        kind = agent_kind(source, custom_command=command_in_settings(source))
    judge_provider = _str(judge.get("provider")) or _str(settings.get("judge_provider"))
    judge_model = _str(judge.get("model")) or _str(settings.get("judge_model"))
    return RunLabels(
        agent=kind,
        model=_str(agent.get("model")) or _str(settings.get("model")),
        provider=_provider_shown(kind, _str(agent.get("provider")) or _str(settings.get("provider"))),
        judge="/".join(x for x in (judge_provider, judge_model) if x) or None,
        image_id=_str(record.get("image_id")) or _str(settings.get("image_id")),
        runner_version=_str(record.get("runner_version")) or _str(settings.get("runner_version")),
    )


def _provider_shown(kind: str | None, provider: str | None) -> str | None:
    """The provider a run's rows name. `oracle` is the settings' default provider, not a model:
    only the oracle agent ran it; a custom command (or an external driver) that kept the default
    ran no oracle, and shows no provider rather than "oracle"."""
    if provider == providers.ORACLE and kind not in (None, ORACLE):
        return None
    return provider


_cache: dict[tuple[str, int | None], tuple[tuple[Any, ...], RunLabels]] = {}


def run_labels(root: Path, run: int | None) -> RunLabels:
    """The labels of run `run` (its run_<k>/; None: the root's run) of the output directory `root`
    (resolved, as output_root gives it)."""
    own = (root / run_dir_name(run) if run is not None else root) / RUN_CONFIG_FILE
    paths = (own, root / RUN_CONFIG_FILE, root / FINGERPRINT_FILE)
    signature = tuple(_stat(p) for p in paths)
    key = (str(root), run)
    hit = _cache.get(key)
    if hit is not None and hit[0] == signature:
        return hit[1]
    config = json_object(root, own, RUN_CONFIG_CAP) or first_run_config(root)
    labels = labels_from(config, json_object(root, root / FINGERPRINT_FILE))
    if len(_cache) >= _CACHE_SIZE:
        _cache.clear()
    _cache[key] = (signature, labels)
    return labels


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value[:MAX_LABEL] if isinstance(value, str) and value else None
