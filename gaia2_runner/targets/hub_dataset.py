"""A `--dataset` (hub id or local copy in the hub's layout) in either of its two layouts, told apart
by the column holding the scenario JSON, and the original layout's configs and splits on disk.

Gaia2-cli's layout (hf_cache.py): its configs are the splits we run. The original one
(hub_layout.py, ARE's): configs `execution` … `ambiguity`, `mini`, `demo`, each with hub splits
(`validation`); the chosen hub split's rows are materialised once as
`<cache>/datasets/<id>/<revision>/hub/<split>/<config>/<scenario_id>.json`, so each config is a
split of our results, as each config is a group of ARE's report. The layout is remembered in the
cache, so a cached dataset is read again without the hub.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from gaia2_runner.config import TargetConfig
from gaia2_runner.config.defaults import DEFAULT_HUB_SPLIT
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.hf_cache import (
    COMPLETE,
    SPLITS_FILE,
    config_names,
    dataset_cache_dir,
    download_error,
    load_options,
    materialize,
)
from gaia2_runner.targets.hub_layout import (
    CAPABILITY_CONFIGS,
    CLI_SCENARIO_COLUMN,
    README,
    ROW_DATA,
    ROW_SCENARIO_ID,
)
from gaia2_runner.text import safe_name

ORIGINAL, GAIA2_CLI = "original", "gaia2-cli"
LAYOUT_FILE = "_layout.json"
HUB_DIR = "hub"  # <cache dir>/hub/<split>/<config>/: kept apart from gaia2-cli's <cache dir>/<split>/


def dataset_root(target: TargetConfig, cache_dir: Path | None) -> tuple[Path, list[str] | None]:
    """The directory whose subdirectories are the splits to run, and which of them (None: all)."""
    local = Path(str(target.dataset))
    hub_choice = target.config is not None or target.split is not None
    if local.is_dir() and not (local / README).is_file() and any(local.iterdir()):
        if hub_choice:
            raise Gaia2Error(
                f"--config/--split: {local} holds scenario files, not a dataset in the hub's "
                "layout (no README.md): drop them and use --splits"
            )
        return local, target.splits  # a plain directory of scenario JSON files given as --dataset
    dataset_id, revision = str(target.dataset), target.revision
    root = dataset_cache_dir(dataset_id, revision, cache_dir)
    names = config_names(dataset_id, revision, root)
    selection = target.config if target.config is not None else target.splits
    wanted = None if not selection or selection == ["all"] else list(dict.fromkeys(selection))
    if wanted:
        unknown = [c for c in wanted if c not in names]
        if unknown:
            noun = "config" if target.config is not None else "split"
            raise Gaia2Error(
                f"unknown {noun} {', '.join(unknown)} in {dataset_id}: available: {', '.join(names)}"
            )
    layout = detect_layout(dataset_id, revision, root, (wanted or names)[0])
    if layout == GAIA2_CLI:
        if hub_choice:
            raise Gaia2Error(
                f"--config/--split: {dataset_id} is in gaia2-cli's layout (its configs are the "
                f"splits {', '.join(names)}): choose them with --splits instead"
            )
        return materialize(dataset_id, wanted, revision, cache_dir), target.splits
    # Nothing chosen: ARE's default, the five capabilities; "all": every config, mini and demo too.
    configs = wanted or (
        names if selection == ["all"] else [c for c in CAPABILITY_CONFIGS if c in names] or names
    )
    split = target.split or DEFAULT_HUB_SPLIT
    for config in configs:
        if not (root / HUB_DIR / split / config / COMPLETE).is_file():
            _download_config(dataset_id, config, split, revision, root)
    return root / HUB_DIR / split, configs


def detect_layout(dataset_id: str, revision: str | None, root: Path, probe: str) -> str:
    """ORIGINAL or GAIA2_CLI, from config `probe`'s columns; asked once, then read from the cache.

    A cache written before the original layout was supported (a config list, no layout file)
    can only be gaia2-cli's."""
    remembered = root / LAYOUT_FILE
    if remembered.is_file():
        return str(json.loads(remembered.read_text()))
    if (root / SPLITS_FILE).is_file() and any((d / COMPLETE).is_file() for d in root.iterdir() if d.is_dir()):
        return GAIA2_CLI
    splits = list(_load_config(dataset_id, probe, revision).values())
    if not splits:
        raise Gaia2Error(
            f"{dataset_id} config {probe}: no splits (no rows at all): not a Gaia2 scenario "
            "dataset, or choose another config with --config"
        )
    columns = set(splits[0].column_names)
    if ROW_DATA in columns and ROW_SCENARIO_ID in columns:
        layout = ORIGINAL
    elif CLI_SCENARIO_COLUMN in columns and ROW_SCENARIO_ID in columns:
        layout = GAIA2_CLI
    else:
        raise Gaia2Error(
            f"{dataset_id} config {probe}: rows have {', '.join(sorted(columns))}, neither "
            f"{ROW_SCENARIO_ID} + {ROW_DATA} (the original Gaia2 layout) nor {ROW_SCENARIO_ID} + "
            f"{CLI_SCENARIO_COLUMN} (gaia2-cli's): not a Gaia2 scenario dataset"
        )
    root.mkdir(parents=True, exist_ok=True)
    partial = remembered.with_suffix(".partial")
    partial.write_text(json.dumps(layout))
    partial.replace(remembered)
    return layout


def _load_config(dataset_id: str, config: str, revision: str | None) -> Any:
    """All hub splits of one config (a DatasetDict); `datasets` keeps its own download cache."""
    try:
        import datasets

        return datasets.load_dataset(dataset_id, name=config, revision=revision, **load_options(dataset_id))
    except Exception as exc:  # noqa: BLE001 - any hub failure becomes one line
        raise download_error(dataset_id, exc) from None


def _download_config(dataset_id: str, config: str, split: str, revision: str | None, root: Path) -> None:
    """Write one config's `split` rows as JSON files in a staging dir, marked complete, then rename it in."""
    splits = _load_config(dataset_id, config, revision)
    if split not in splits:
        raise Gaia2Error(
            f"unknown split {split} in {dataset_id} config {config}: available: "
            f"{', '.join(splits) or 'none'} (--split)"
        )
    rows = splits[split]
    missing = {ROW_SCENARIO_ID, ROW_DATA} - set(rows.column_names)
    if missing:
        raise Gaia2Error(
            f"{dataset_id} config {config}: rows lack {', '.join(sorted(missing))}: "
            "not a Gaia2 scenario dataset in the original layout"
        )
    parent = root / HUB_DIR / split
    staging = parent / f".{config}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for row in rows:
        name = safe_name(str(row[ROW_SCENARIO_ID]))
        target = staging / f"{name}.json"
        if target.exists():
            raise Gaia2Error(f"{dataset_id} config {config} split {split}: scenario id {name} appears twice")
        data = row[ROW_DATA]
        target.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    (staging / COMPLETE).write_text(str(len(rows)))
    final = parent / config
    shutil.rmtree(final, ignore_errors=True)
    staging.rename(final)
