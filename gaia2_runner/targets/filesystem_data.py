"""The Files app's bytes on the host: where they live, fetching them when some are missing.

Real Gaia2 scenarios carry no file contents: a `Files` node names its bytes with `real_path`,
relative to a copy of the Hugging Face dataset `meta-agents-research-environments/gaia2_filesystem`
(gaia2_contract/files_tree.py walks the tree; the container repeats that walk). Before a container
starts, every file a scenario needs must be in the data directory (`--filesystem-dir`, default
`<cache>/gaia2_filesystem`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from gaia2_contract.files_tree import describe_missing, missing_files
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.hf_cache import cache_root

FILESYSTEM_DATASET = "meta-agents-research-environments/gaia2_filesystem"

_fetch_lock = threading.Lock()
_fetch_failures: dict[Path, str] = {}  # one download attempt per directory and process


def default_filesystem_dir(cache_dir: Path | None = None) -> Path:
    """`<cache>/gaia2_filesystem`: ~/.cache/gaia2-runner, or $GAIA2_CACHE_DIR, like the datasets."""
    return cache_root(cache_dir) / "gaia2_filesystem"


def ensure_files(root: Path, paths: tuple[str, ...] | list[str]) -> Path:
    """Make sure `paths` are under `root`, fetching the hub dataset once when some are not.

    Returns the resolved directory to mount; raises Gaia2Error naming the missing files (the run
    then ends as an infrastructure error, before any container starts)."""
    root = Path(os.path.expanduser(str(root)))
    missing = missing_files(root, paths)
    if not missing:
        return root.resolve()
    fetch_error = _fetch_once(root)
    missing = missing_files(root, paths)
    if not missing:
        return root.resolve()
    why = f"; fetching {FILESYSTEM_DATASET} failed: {fetch_error}" if fetch_error else ""
    raise Gaia2Error(
        f"{describe_missing(root, missing, len(paths))}{why} "
        f"(set --filesystem-dir to a copy of {FILESYSTEM_DATASET})"
    )


def _fetch_once(root: Path) -> str | None:
    """huggingface_hub.snapshot_download into `root`, at most once per directory and process; the
    reason of a failure in one line, None after a download."""
    with _fetch_lock:
        if root in _fetch_failures:
            return _fetch_failures[root]
        try:
            from huggingface_hub import snapshot_download

            snapshot_download(repo_id=FILESYSTEM_DATASET, repo_type="dataset", local_dir=str(root))
            reason = None
        except Exception as exc:  # noqa: BLE001 - any hub failure becomes one line
            text = " ".join(str(exc).split())
            reason = f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
        _fetch_failures[root] = reason or "downloaded, but the files are not in it"
        return reason
