"""The Files app's bytes: which data files a scenario needs, where they live, fetching them.

Real Gaia2 scenarios carry no file contents: a `Files` (SandboxLocalFileSystem) node names its
bytes with `real_path` (`demo_filesystem/Documents/x.txt`), relative to a copy of the Hugging Face
dataset `meta-agents-research-environments/gaia2_filesystem`. ARE 1.2.0 reads a file node from
`$DEMO_FS_PATH/<path in the tree>` with DEMO_FS_PATH = `<copy>/demo_filesystem`, which is the
same file; a file missing there is silently served empty. So before a container starts, every
`real_path` must be a plain relative path at that place, and the file must be in the data
directory (`--filesystem-dir`, default `<cache>/gaia2_filesystem`). The container repeats the
check (containers/gaia2_container/daemon/files_data.py holds the same walk).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.hf_cache import cache_root

FILESYSTEM_DATASET = "meta-agents-research-environments/gaia2_filesystem"
DEMO_FS_DIR = "demo_filesystem"  # ARE's config.DEMO_FS_DIR
FS_CLASSES = frozenset({"SandboxLocalFileSystem", "Files"})
APPS_TO_SKIP = ("SandboxLocalFileSystem",)  # ARE's benchmark skips apps named so (by instance name)
MAX_LISTED = 5

_fetch_lock = threading.Lock()
_fetch_failures: dict[Path, str] = {}  # one download attempt per directory and process


def default_filesystem_dir(cache_dir: Path | None = None) -> Path:
    """`<cache>/gaia2_filesystem`: ~/.cache/gaia2-runner, or $GAIA2_CACHE_DIR, like the datasets."""
    return cache_root(cache_dir) / "gaia2_filesystem"


class FileTreeError(ValueError):
    """The Files tree names a path outside the data directory, or one ARE would not read."""


def data_files(doc: Any) -> list[str]:
    """Dataset-relative paths of every file node with a `real_path`, in the apps ARE loads."""
    needed: set[str] = set()
    if not isinstance(doc, dict):
        return []
    for app in doc.get("apps") or []:
        if not isinstance(app, dict):
            continue
        name = app.get("name")
        cls = app.get("class_name") or name
        if name in APPS_TO_SKIP or cls not in FS_CLASSES:
            continue
        state = app.get("app_state")
        tree = state.get("files") if isinstance(state, dict) else None
        if isinstance(tree, dict):
            _walk(str(name), tree, [], needed)
    return sorted(needed)


def _walk(app: str, node: dict[str, Any], parts: list[str], needed: set[str]) -> None:
    children = node.get("children") or []
    if not isinstance(children, list):
        raise FileTreeError(f"{app}: `children` of /{'/'.join(parts)} is not a list")
    for child in children:
        if not isinstance(child, dict):
            continue
        name = child.get("name")
        if not isinstance(name, str) or not safe_part(name):
            raise FileTreeError(f"{app}: file tree entry {str(name)[:80]!r} under /{'/'.join(parts)} "
                                "is not a plain name: refused")
        kind = child.get("type")
        if kind == "directory":
            _walk(app, child, [*parts, name], needed)
        elif kind == "file" and child.get("real_path") is not None:
            expected = "/".join([DEMO_FS_DIR, *parts, name])
            real = child.get("real_path")
            if not isinstance(real, str) or not safe_relative(real):
                raise FileTreeError(f"{app}: real_path {str(real)[:120]!r} of /{'/'.join([*parts, name])} "
                                    "leaves the data directory: refused")
            if real != expected:
                raise FileTreeError(f"{app}: real_path {real!r} of /{'/'.join([*parts, name])} is not "
                                    f"where ARE reads that file ({expected}): refused")
            needed.add(real)


def safe_part(name: str) -> bool:
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def safe_relative(path: str) -> bool:
    """A plain relative path: no root, no `..`, no empty or `.` parts, no backslash or NUL."""
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        return False
    return all(safe_part(part) for part in path.split("/"))


def missing_files(root: Path, paths: list[str] | tuple[str, ...]) -> list[str]:
    """The paths that are not regular files inside `root` (links leaving it count as missing)."""
    try:
        base = Path(root).resolve(strict=True)
    except OSError:
        return list(paths)
    missing = []
    for rel in paths:
        target = Path(os.path.realpath(base / rel))
        if base not in target.parents or not target.is_file():
            missing.append(rel)
    return missing


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
    shown = ", ".join(missing[:MAX_LISTED]) + (f" and {len(missing) - MAX_LISTED} more" if len(missing) > MAX_LISTED else "")
    why = f"; fetching {FILESYSTEM_DATASET} failed: {fetch_error}" if fetch_error else ""
    raise Gaia2Error(f"{len(missing)} of {len(paths)} file(s) the Files app needs are missing from the file "
                     f"data directory {root}: {shown}{why} (set --filesystem-dir to a copy of {FILESYSTEM_DATASET})")


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
