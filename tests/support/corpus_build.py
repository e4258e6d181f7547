"""Build the universe-scale corpus for tests/e2e/test_gaia2_corpus.py inside the runtime image, once
per generator version.

The host has no ARE, so the generator (scripts/make_gaia2_corpus.py) and ARE's own checks
(scripts/validate_scenarios_with_are.py) run in a container of the runtime image; the scripts go
in and the results come out as tar archives through the podman API (no bind mounts). One
container run generates the corpus twice (the second copy only to prove the output
byte-identical), validates it with ARE and records every step's exit code.

The result is cached under $GAIA2_TEST_CACHE (default ~/.cache/gaia2-runner-tests) in a
directory named after the digest of the generator's sources and the pinned ARE version, so test
runs regenerate only when one of them changed.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
import tempfile
import time
from pathlib import Path

from gaia2_runner.sandbox.container_handle import ContainerHandle
from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
SPLIT = "universe"  # the corpus directory, used as a split of the dataset root
SOURCES = sorted(
    [
        *SCRIPTS.glob("corpus_*.py"),
        SCRIPTS / "make_gaia2_corpus.py",
        SCRIPTS / "are_export.py",
        SCRIPTS / "validate_scenarios_with_are.py",
        REPO / "containers" / "requirements-are.txt",
    ]
)

# Runs in the container, in /work. Every step's exit code lands in out/status.txt.
SCRIPT = f"""
PY=/opt/gaia2/venv/bin/python
export PYTHONDONTWRITEBYTECODE=1
cd /work && mkdir -p out
start=$(date +%s)
$PY scripts/make_gaia2_corpus.py out/{SPLIT} > out/generate.log 2>&1; echo "generate $?" >> out/status.txt
echo "generate_seconds $(( $(date +%s) - start ))" >> out/status.txt
$PY scripts/make_gaia2_corpus.py rerun/{SPLIT} > /dev/null 2>&1; echo "rerun $?" >> out/status.txt
$PY - >> out/status.txt <<'EOF'
import hashlib, pathlib
def digests(root):
    root = pathlib.Path(root)
    return {{str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}}
a, b = digests("out/{SPLIT}"), digests("rerun/{SPLIT}")
print("identical_files", sum(a[k] == b.get(k) for k in a), "of", len(a), "differing", sorted(set(a) ^ set(b)) or
      [k for k in a if a[k] != b.get(k)])
EOF
start=$(date +%s)
$PY scripts/validate_scenarios_with_are.py out/{SPLIT} --skip-cli > out/validate.log 2>&1
echo "validate $?" >> out/status.txt
echo "validate_seconds $(( $(date +%s) - start ))" >> out/status.txt
"""


def source_digest() -> str:
    h = hashlib.sha256()
    for path in SOURCES:
        h.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_root() -> Path:
    return Path(os.environ.get("GAIA2_TEST_CACHE") or Path.home() / ".cache" / "gaia2-runner-tests")


def _tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()[: tar.offset]


def run_in_runtime_image(
    sandbox, files: dict[str, bytes], script: str, out_path: str, limit_s: float
) -> tuple[int | None, str, bytes]:
    """Run `script` (sh) in a fresh runtime-image container holding `files` (paths under /);
    return its exit code (None: over `limit_s`), its output, and the tar of `out_path`."""
    container = sandbox.driver.client.containers.create(
        RUNTIME_BASE_IMAGE,
        entrypoint=["/bin/sh", "-c"],
        command=[script],
        network_mode="none",
        name=f"gaia2-corpus-build-{os.getpid()}-{int(time.time())}",
    )
    try:
        if not container.put_archive("/", _tar(files)):
            raise RuntimeError("cannot copy the generator into the container")
        container.start()
        # "stopped" is not enough: podman's cleanup may still hide what the script wrote.
        if not ContainerHandle(container.id, container.name, 0, sandbox).wait_exited(limit_s):
            return None, "", b""
        container.reload()
        code = int(container.attrs["State"]["ExitCode"])
        logs = b"".join(container.logs(stdout=True, stderr=True)).decode(errors="replace")
        stream, _ = container.get_archive(out_path)
        return code, logs, b"".join(stream)
    finally:
        container.remove(force=True, v=True)  # and the output volume (Containerfile.base)


def build_corpus(sandbox, limit_s: float = 1500) -> Path:
    """The cached corpus directory (out/ of SCRIPT: {SPLIT}/, the logs, status.txt); built if absent.

    Only a build whose every step succeeded is cached; a failed one raises with its logs."""
    final = cache_root() / f"corpus-{source_digest()}"
    if (final / "status.txt").is_file():
        return final
    files = {f"work/scripts/{p.name}": p.read_bytes() for p in SOURCES if p.parent == SCRIPTS}
    code, logs, archive = run_in_runtime_image(sandbox, files, SCRIPT, "/work/out", limit_s)
    if code != 0:
        raise RuntimeError(f"corpus build in {RUNTIME_BASE_IMAGE} failed (exit {code}): {logs[-2000:]}")
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".corpus-", dir=final.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(staging, filter="data")
        built = staging / "out"
        failed = {
            k: v for k, v in status(built).items() if k in ("generate", "rerun", "validate") and v != "0"
        }
        if failed:
            logs = "".join(
                (built / n).read_text()[-3000:]
                for n in ("generate.log", "validate.log")
                if (built / n).is_file()
            )
            raise RuntimeError(f"corpus build steps failed {failed}: {logs}")
        if not final.exists():  # else a concurrent session cached the same build first
            built.rename(final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final


def status(corpus_dir: Path) -> dict[str, str]:
    """status.txt as {step: rest of line}."""
    lines = (corpus_dir / "status.txt").read_text().splitlines()
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in lines if " " in line}
