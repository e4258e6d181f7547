"""What an image build receives: the `containers/` directory plus the shared contract package.

The container code imports `gaia2_contract`, which lives at the top of the repository (the host
imports it too), outside the `containers/` build context. So the archive sent to podman is
containers/ with the contract added beside `gaia2_container`, taken from the very package this
runner imports: host and images speak the same contract. Containerfile.code copies both.
"""

from __future__ import annotations

import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from podman import api as podman_api

import gaia2_contract

CONTRACT_DIR = "gaia2_contract"  # its place in the build context (and under /opt/gaia2/src in the image)
CONTRACT_SOURCE = Path(gaia2_contract.__file__).resolve().parent


def contract_files(source: Path = CONTRACT_SOURCE) -> Iterator[tuple[str, Path]]:
    """(path in the build context, file) for every file of the contract package, in a stable order."""
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        yield f"{CONTRACT_DIR}/{path.relative_to(source).as_posix()}", path


def context_archive(context: Path, source: Path = CONTRACT_SOURCE) -> BinaryIO:
    """A tar of `context` (its .containerignore honoured) with the contract package added."""
    base = podman_api.create_tar(
        anchor=str(context), exclude=podman_api.prepare_containerignore(str(context))
    )
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
