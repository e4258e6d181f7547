"""What an image build receives: the `containers/` directory plus the shared contract package.

The container code imports `gaia2_contract`, which lives at the top of the repository (the host
imports it too), outside the `containers/` build context. So the archive sent to podman is
containers/ with the contract added beside `gaia2_container`, taken from the very package this
runner imports: host and images speak the same contract. Containerfile.code copies both.
"""

from __future__ import annotations

import tarfile
import tempfile
from collections.abc import Iterable, Iterator
from fnmatch import fnmatch
from pathlib import Path
from typing import BinaryIO

from podman import api as podman_api

import gaia2_contract

CONTRACT_DIR = "gaia2_contract"  # its place in the build context (and under /opt/gaia2/src in the image)
CONTRACT_SOURCE = Path(gaia2_contract.__file__).resolve().parent
# Never part of an image nor of its digest (sandbox/images.py): what local tools leave in a
# checkout. Left in, a cache that one checkout has and a fresh clone lacks made each rebuild the
# other's images, the Node harnesses' installs included. Matched as the archive matches (fnmatch
# on the path in the context, whose `*` crosses directories), besides the context's own
# .containerignore.
LOCAL_LEFTOVERS = (".mypy_cache", ".ruff_cache", ".pytest_cache", "*__pycache__", "*.pyc")


def excluded(context: Path) -> list[str]:
    """The patterns of what the archive leaves out of `context`."""
    return [*LOCAL_LEFTOVERS, *podman_api.prepare_containerignore(str(context))]


def context_files(context: Path) -> Iterator[tuple[str, Path]]:
    """(path in the build context, file) for every file of `context` that the archive sends, in a
    stable order (a directory left out takes its files with it, as in the archive)."""
    patterns = excluded(context)
    for path in sorted(p for p in context.rglob("*") if p.is_file()):
        rel = path.relative_to(context).as_posix()
        if not left_out(rel, patterns):
            yield rel, path


def left_out(rel: str, patterns: Iterable[str]) -> bool:
    """Whether `rel` or a directory above it matches one of `patterns`."""
    parts = rel.split("/")
    return any(fnmatch("/".join(parts[:i]), p) for i in range(1, len(parts) + 1) for p in patterns)


def contract_files(source: Path = CONTRACT_SOURCE) -> Iterator[tuple[str, Path]]:
    """(path in the build context, file) for every file of the contract package, in a stable order."""
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        rel = path.relative_to(source).as_posix()
        if not left_out(rel, LOCAL_LEFTOVERS):
            yield f"{CONTRACT_DIR}/{rel}", path


def context_archive(context: Path, source: Path = CONTRACT_SOURCE) -> BinaryIO:
    """A tar of `context` (but `excluded`) with the contract package added."""
    base = podman_api.create_tar(anchor=str(context), exclude=excluded(context))
    out = tempfile.TemporaryFile(prefix="gaia2_context", suffix=".tar")
    with base, tarfile.open(fileobj=base, mode="r:") as src, tarfile.open(fileobj=out, mode="w") as tar:
        for member in src:
            if member.name.split("/")[0] != CONTRACT_DIR:
                tar.addfile(member, src.extractfile(member) if member.isfile() else None)
        for name, path in contract_files(source):
            info = tar.gettarinfo(str(path), arcname=name)
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            with path.open("rb") as data:
                tar.addfile(info, data)
    out.seek(0)
    return out
