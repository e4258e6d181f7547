"""The bytes behind the Files app: which data files a scenario needs, and whether they are there.

ARE 1.2.0's SandboxLocalFileSystem restores its state as empty placeholders and backs each file
node lazily with `$DEMO_FS_PATH/<path in the tree>` (a local copy of the Hugging Face dataset
`meta-agents-research-environments/gaia2_filesystem`, whose `demo_filesystem/` holds the bytes).
A file node's `real_path` names the same file relative to the dataset root
(`demo_filesystem/Documents/x.txt`). A file missing there is silently served empty, so both sides
walk the tree: the runner before a container starts (gaia2_runner/targets/filesystem_data.py
fetches what is missing), the daemon again before the clock starts (daemon/loader.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

DEMO_FS_DIR = "demo_filesystem"  # ARE's config.DEMO_FS_DIR: the dataset folder ARE reads from
# ARE's file-system classes whose file nodes are backed by that data (APP_ALIAS maps Files to it).
FS_CLASSES = frozenset({"SandboxLocalFileSystem", "Files"})
# ARE's benchmark skips apps *named* so (scenario_loader.APPS_TO_SKIP): their files are never read.
APPS_TO_SKIP = ("SandboxLocalFileSystem",)
MAX_LISTED = 5  # missing files named in an error; the rest are counted


class FileTreeError(ValueError):
    """The Files tree names a path outside the data directory, or one ARE would not read."""


def data_files(doc: Any) -> list[str]:
    """Dataset-relative paths of every file node with a `real_path`, in the apps ARE loads.

    Raises FileTreeError for a node name or `real_path` that could leave the data directory, or
    a `real_path` that is not where ARE reads the file from (`demo_filesystem/<path in tree>`).
    """
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
            raise FileTreeError(
                f"{app}: file tree entry {str(name)[:80]!r} under /{'/'.join(parts)} "
                "is not a plain name: refused"
            )
        kind = child.get("type")
        if kind == "directory":
            _walk(app, child, [*parts, name], needed)
        elif kind == "file" and child.get("real_path") is not None:
            expected = "/".join([DEMO_FS_DIR, *parts, name])
            real = child.get("real_path")
            if not isinstance(real, str) or not safe_relative(real):
                raise FileTreeError(
                    f"{app}: real_path {str(real)[:120]!r} of /{'/'.join([*parts, name])} "
                    "leaves the data directory: refused"
                )
            if real != expected:
                raise FileTreeError(
                    f"{app}: real_path {real!r} of /{'/'.join([*parts, name])} is not "
                    f"where ARE reads that file ({expected}): refused"
                )
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


def describe_missing(root: Path | str, missing: list[str], total: int) -> str:
    """ "N of M file(s) ... are missing from the file data directory ROOT: a, b and K more"."""
    shown = ", ".join(missing[:MAX_LISTED]) + (
        f" and {len(missing) - MAX_LISTED} more" if len(missing) > MAX_LISTED else ""
    )
    return (
        f"{len(missing)} of {total} file(s) the Files app needs are missing from the file data "
        f"directory {root}: {shown}"
    )
