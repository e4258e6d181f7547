"""Hugging Face datasets (rows `scenario_id` + `scenario` JSON string, one config per split, split
`test`) materialised once as `<cache>/datasets/<id>/<revision>/<split>/<scenario_id>.json`.

The `datasets` library is imported lazily: it is slow to import and only this path needs it.
A local directory in the hub's layout goes through the same code, which is how it is tested here.
The original Gaia2 layout (configs with hub splits, JSON in `data`) is hub_dataset.py's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.hub_layout import CAPABILITY_CONFIGS, CLI_SCENARIO_COLUMN, ROW_SCENARIO_ID
from gaia2_runner.text import safe_name

GAIA2_SPLITS = tuple(sorted(CAPABILITY_CONFIGS))  # gaia2-cli's configs, used when the hub lists none
COMPLETE = ".complete"
SPLITS_FILE = "_splits.json"


def cache_root(cache_dir: Path | None = None) -> Path:
    """`cache_dir`, else $GAIA2_CACHE_DIR, else ~/.cache/gaia2-runner."""
    base = cache_dir or os.environ.get("GAIA2_CACHE_DIR") or Path.home() / ".cache" / "gaia2-runner"
    return Path(os.path.expanduser(str(base)))


def dataset_cache_dir(dataset_id: str, revision: str | None, cache_dir: Path | None = None) -> Path:
    """Where a dataset's scenarios are materialised. A local copy's revision is a stamp of its files,
    so a copy rebuilt in place is read afresh rather than from a stale cache."""
    name = dataset_id.strip("/").replace("/", "__")
    return (
        cache_root(cache_dir) / "datasets" / safe_name(name) / safe_name(revision or _local_stamp(dataset_id))
    )


def load_options(dataset_id: str) -> dict[str, str]:
    """`datasets.load_dataset` options: a local copy is read afresh (the library's own cache would
    hand back the rows of a copy since rebuilt in place); a hub id uses that cache."""
    if not Path(os.path.expanduser(dataset_id)).is_dir():
        return {}
    return {"download_mode": "force_redownload", "verification_mode": "no_checks"}


def _local_stamp(dataset_id: str) -> str:
    """ "main" for a hub id; for a local directory, "local-" + a hash of its files' paths, sizes and
    modification times (cheap: a copy holds a README and a few data files)."""
    local = Path(os.path.expanduser(dataset_id))
    if not local.is_dir():
        return "main"
    digest = hashlib.sha256()
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        stat = path.stat()
        digest.update(f"{path.relative_to(local)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return "local-" + digest.hexdigest()[:16]


def materialize(
    dataset_id: str, splits: list[str] | None, revision: str | None = None, cache_dir: Path | None = None
) -> Path:
    """Make sure the wanted splits (None: all) are on disk; return the dataset's cache dir."""
    root = dataset_cache_dir(dataset_id, revision, cache_dir)
    wanted = list(splits) if splits else config_names(dataset_id, revision, root)
    missing = [s for s in wanted if not (root / s / COMPLETE).is_file()]
    if missing and splits:
        # Check names before downloading, so a typo lists the real splits instead of a hub error.
        available = config_names(dataset_id, revision, root)
        unknown = [s for s in missing if s not in available]
        if unknown:
            raise Gaia2Error(
                f"unknown split {', '.join(unknown)} in {dataset_id}: available: {', '.join(available)}"
            )
    for split in missing:
        _download_split(dataset_id, split, revision, root)
    return root


def config_names(dataset_id: str, revision: str | None, root: Path) -> list[str]:
    """The dataset's config names (one per split in this layout), asked once and remembered in the cache."""
    listed = root / SPLITS_FILE
    if listed.is_file():
        return json.loads(listed.read_text())
    try:
        import datasets

        names = list(datasets.get_dataset_config_names(dataset_id, revision=revision))
    except Exception as exc:  # noqa: BLE001 - any hub failure becomes one line
        raise download_error(dataset_id, exc) from None
    names = [n for n in names if n != "default"] or list(GAIA2_SPLITS)
    root.mkdir(parents=True, exist_ok=True)
    partial = listed.with_suffix(".partial")
    partial.write_text(json.dumps(names))
    partial.replace(listed)
    return names


def _download_split(dataset_id: str, split: str, revision: str | None, root: Path) -> None:
    """Write one split's rows as JSON files in a staging dir, marked complete, then rename it in."""
    try:
        import datasets

        rows = datasets.load_dataset(
            dataset_id, name=split, split="test", revision=revision, **load_options(dataset_id)
        )
    except ValueError as exc:
        if "BuilderConfig" in str(exc) or "config" in str(exc).lower():
            raise Gaia2Error(
                f"unknown split {split!r} in {dataset_id}: {' '.join(str(exc).split())[:300]}"
            ) from None
        raise download_error(dataset_id, exc) from None
    except Exception as exc:  # noqa: BLE001
        raise download_error(dataset_id, exc) from None
    missing = {ROW_SCENARIO_ID, CLI_SCENARIO_COLUMN} - set(rows.column_names)
    if missing:
        raise Gaia2Error(
            f"{dataset_id} split {split}: rows lack {', '.join(sorted(missing))}: not a Gaia2 scenario dataset"
        )
    staging = root / f".{split}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for row in rows:
        data = row[CLI_SCENARIO_COLUMN]
        text = data if isinstance(data, str) else json.dumps(data)
        (staging / f"{safe_name(str(row[ROW_SCENARIO_ID]))}.json").write_text(text, encoding="utf-8")
    (staging / COMPLETE).write_text(str(len(rows)))
    final = root / split
    shutil.rmtree(final, ignore_errors=True)
    staging.rename(final)


def download_error(dataset_id: str, exc: BaseException) -> Gaia2Error:
    reason = " ".join(str(exc).split())[:300] or type(exc).__name__
    return Gaia2Error(
        f"could not download {dataset_id} from Hugging Face: {reason}; check the id, HF_TOKEN or your network"
    )
