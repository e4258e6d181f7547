"""Build the runner's images through the engine's REST API (podman or Docker: the same /build call).

The build context is the repository's `containers/` directory. Builds stream their log lines
while they run, so a ten-minute pip install shows progress instead of a frozen terminal.

Our own container code (`containers/gaia2_container` and the shared `gaia2_contract`, added to the
context by build_context.py) is the last layer of every image
(Containerfile.code on top of a "-deps" image that holds everything else: Python, ARE, Node, a
harness's package). Changing the code rebuilds only that layer, in seconds, instead of every
harness's npm or pip install.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gaia2_runner.config.defaults import (  # the image names' owner
    AGENT_IMAGE,
    DEFAULT_BASE_IMAGE,
    NODE_IMAGE,
    ORACLE_IMAGE,
    RUNTIME_BASE_IMAGE,
    RUNTIME_DEPS_IMAGE,
)
from gaia2_runner.config.harnesses import Harness
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.resources import checkout_candidates
from gaia2_runner.sandbox.build_context import CONTRACT_SOURCE, context_archive, context_files, contract_files
from gaia2_runner.sandbox.sandbox import Sandbox

HARNESSES_DIR = "harnesses"  # containers/harnesses/<name>/{Containerfile,profile.toml}
NODE_CONTAINERFILE = f"{HARNESSES_DIR}/node/Containerfile"
CODE_DIR = "gaia2_container"  # containers/<CODE_DIR>: the code every image ends with
CODE_CONTAINERFILE = "Containerfile.code"  # COPY of CODE_DIR and the contract onto FROM_IMAGE
DEPS_SUFFIX = "-deps"  # localhost/gaia2-codex-deps:latest: a harness image before our code
LAYOUT = "code-last"  # in every digest: an image built before the code became its own layer is stale
SYSTEM_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
BUILD_CA_NAME = "build-ca.pem"

SOURCE_LABEL = "io.gaia2-runner.source-digest"

LogFn = Callable[[str], None]
# podman before 4.6 (Debian 12's 4.3 included) can SIGKILL a build's own RUN step: buildah set the
# runtime's parent-death signal from a Go thread the runtime may retire at any time (podman#17918,
# fixed in buildah 1.31). Nothing is wrong with the Containerfile, so the build runs again (its
# finished layers are cached); a step killed every time (out of memory, say) fails at the last try.
ENGINE_KILLED_RUN = "while running runtime: signal: killed"
BUILD_ATTEMPTS = 3


@dataclass(frozen=True)
class ImageSpec:
    tag: str
    containerfile: str  # relative to the containers/ directory
    buildargs: dict[str, str]
    has_code: bool = True  # our container code is in it (its digest then covers CODE_DIR)

    def parents(self, tags: Iterable[str]) -> list[str]:
        """The images among `tags` this one starts FROM."""
        known = set(tags)
        return [value for value in self.buildargs.values() if value in known]


def deps_tag(image: str) -> str:
    """localhost/gaia2-codex:latest -> localhost/gaia2-codex-deps:latest"""
    name, _, tag = image.rpartition(":")
    return f"{name}{DEPS_SUFFIX}:{tag}" if name else f"{image}{DEPS_SUFFIX}"


def with_code(tag: str, deps: str) -> ImageSpec:
    return ImageSpec(tag, CODE_CONTAINERFILE, {"FROM_IMAGE": deps})


def default_base_image() -> str:
    return os.environ.get("GAIA2_BASE_IMAGE") or DEFAULT_BASE_IMAGE


def image_specs(
    base_image: str | None = None, harnesses: Sequence[Harness] = (), defaults: bool = True
) -> list[ImageSpec]:
    """The images in build order (each may start FROM one before it): the runtime deps and base,
    the default set (oracle, built-in LLM agent) and, for CLI harnesses, the Node image and theirs
    (each a "-deps" image with the harness's package, then our code on top)."""
    specs = [
        ImageSpec(
            RUNTIME_DEPS_IMAGE,
            "Containerfile.base",
            {"BASE_IMAGE": base_image or default_base_image()},
            has_code=False,
        ),
        with_code(RUNTIME_BASE_IMAGE, RUNTIME_DEPS_IMAGE),
    ]
    if defaults:
        specs += [
            ImageSpec(ORACLE_IMAGE, "Containerfile.oracle", {"RUNTIME_BASE": RUNTIME_BASE_IMAGE}),
            ImageSpec(AGENT_IMAGE, "Containerfile.agent", {"RUNTIME_BASE": RUNTIME_BASE_IMAGE}),
        ]
    cli = [h for h in harnesses if not h.builtin]
    if any(h.base == "node" for h in cli):
        specs.append(
            ImageSpec(NODE_IMAGE, NODE_CONTAINERFILE, {"RUNTIME_BASE": RUNTIME_DEPS_IMAGE}, has_code=False)
        )
    for h in cli:
        parent = NODE_IMAGE if h.base == "node" else RUNTIME_DEPS_IMAGE
        specs += [
            ImageSpec(
                deps_tag(h.image),
                h.containerfile,
                {"HARNESS_BASE": parent, "VERSION": str(h.version)},
                has_code=False,
            ),
            with_code(h.image, deps_tag(h.image)),
        ]
    return specs


def containers_dir() -> Path:
    """The build context: $GAIA2_CONTAINERS_DIR, else `containers/` next to this package."""
    candidates = checkout_candidates("containers", "GAIA2_CONTAINERS_DIR")
    for path in candidates:
        if (path / "Containerfile.base").is_file():
            return path
    raise Gaia2Error(
        f"no containers/Containerfile.base found (looked in {', '.join(map(str, candidates))}): "
        "run from a gaia2-runner checkout or set GAIA2_CONTAINERS_DIR"
    )


def source_digest(
    context: Path, harnesses: Iterable[str] = (), code: bool = True, contract: Path = CONTRACT_SOURCE
) -> str:
    """Digest of what an image is built from, so stale images are rebuilt automatically: the
    runtime files, plus the directories of the `harnesses` it holds (under containers/harnesses/,
    "node" included); without CODE_DIR and the `contract` package for the "-deps" images (our
    code changes most often)."""
    digest = hashlib.sha256(LAYOUT.encode())
    own = {f"{HARNESSES_DIR}/{name}" for name in harnesses}
    for rel, path in context_files(context):  # what the build receives
        if rel == BUILD_CA_NAME:
            continue
        parts = rel.split("/")
        if parts[0] == HARNESSES_DIR and "/".join(parts[:2]) not in own:
            continue
        if parts[0] == CODE_DIR and not code:
            continue
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    for rel, path in contract_files(contract) if code else ():
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def spec_digest(
    context: Path, spec: ImageSpec, specs: Sequence[ImageSpec] = (), contract: Path = CONTRACT_SOURCE
) -> str:
    """An image's digest covers the harness directories of every image in its FROM chain (a
    Node harness: its own and the Node image's)."""
    by_tag = {s.tag: s for s in specs}
    harnesses: set[str] = set()
    current: ImageSpec | None = spec
    while current is not None:
        parts = current.containerfile.split("/")
        if parts[0] == HARNESSES_DIR:
            harnesses.add(parts[1])
        parent = current.parents(by_tag)
        current = by_tag[parent[0]] if parent else None
    return source_digest(context, harnesses, code=spec.has_code, contract=contract)


def stale_specs(specs: Sequence[ImageSpec], is_current: Callable[[ImageSpec], bool]) -> list[ImageSpec]:
    """The specs to build: those not current, and every one starting FROM one that is rebuilt."""
    todo: list[ImageSpec] = []
    rebuilt: set[str] = set()
    for spec in specs:
        if spec.parents(rebuilt) or not is_current(spec):
            todo.append(spec)
            rebuilt.add(spec.tag)
    return todo


def image_is_current(sandbox: Sandbox, tag: str, digest: str) -> bool:
    labels = sandbox.driver.image_labels(tag)
    return labels is not None and labels.get(SOURCE_LABEL) == digest


def resolve_ca_bundle(ca_bundle: str | Path | None = None) -> Path | None:
    """The CA bundle pip inside the build should trust: option, $GAIA2_CA_BUNDLE, system bundle."""
    explicit = ca_bundle or os.environ.get("GAIA2_CA_BUNDLE")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            source = "--ca-bundle" if ca_bundle else "GAIA2_CA_BUNDLE"
            raise Gaia2Error(f"CA bundle {path} (from {source}) not found: fix the path or unset it")
        return path
    return SYSTEM_CA_BUNDLE if SYSTEM_CA_BUNDLE.is_file() else None


def write_build_ca(context: Path, ca_bundle: str | Path | None = None) -> Path:
    """Copy the CA bundle to containers/build-ca.pem (empty file when there is none)."""
    target = context / BUILD_CA_NAME
    source = resolve_ca_bundle(ca_bundle)
    if source is None:
        target.write_bytes(b"")
    elif source.resolve() != target.resolve():
        shutil.copyfile(source, target)
    return target


def build_image(
    sandbox: Sandbox,
    spec: ImageSpec,
    context: Path,
    nocache: bool = False,
    log: LogFn | None = None,
    digest: str | None = None,
) -> str:
    """Build one image and return its id; raise Gaia2Error with the last log lines on failure.

    Streams the build's messages (the driver's build), so progress shows as it happens.
    """
    containerfile = context / spec.containerfile
    if not containerfile.is_file():
        raise Gaia2Error(f"{containerfile} not found: the build context is incomplete")
    params = {
        "dockerfile": spec.containerfile,
        "t": spec.tag,
        "buildargs": json.dumps(spec.buildargs),
        # Builds pip-install from the network. podman 4.3 already runs API builds in the host's
        # network namespace; newer versions honour this parameter.
        "networkmode": "host",
        "nocache": nocache,
        "rm": True,
        "forcerm": True,
        "layers": True,
        "labels": json.dumps({SOURCE_LABEL: digest or source_digest(context)}),
    }
    for attempt in range(1, BUILD_ATTEMPTS + 1):
        body = context_archive(context)
        try:
            result = sandbox.driver.build(body, params, log)
        finally:
            body.close()
        if not (result.error and ENGINE_KILLED_RUN in result.error) or attempt == BUILD_ATTEMPTS:
            break
        if log:
            log(f"the engine killed a RUN step of {spec.tag} (podman#17918): building again")
    error, image_id, tail = result.error, result.image_id, result.tail
    if error or not sandbox.image_exists(spec.tag):
        last = " | ".join(tail[-3:])
        raise Gaia2Error(
            f"building {spec.tag} from containers/{spec.containerfile} failed: "
            f"{error or 'no image was produced'}" + (f" (last log lines: {last})" if last else "")
        )
    return image_id or spec.tag


def build_images(
    sandbox: Sandbox | None = None,
    base_image: str | None = None,
    ca_bundle: str | Path | None = None,
    nocache: bool = False,
    only_missing: bool = False,
    log: LogFn | None = None,
    on_image: Callable[[str, str], None] | None = None,
    harnesses: Sequence[Harness] = (),
    defaults: bool = True,
) -> list[str]:
    """Build the runtime base, the default set (unless `defaults` is False) and the images of
    `harnesses`; return the tags actually built.

    With `only_missing`, an image is built when it is absent, built from other sources (its
    source-digest label differs from containers/ now), or when an image it starts from was just
    rebuilt. `on_image(tag, phase)` reports "start"/"done"/"failed" for progress displays.
    """
    own = sandbox is None
    sandbox = sandbox or Sandbox.connect()
    try:
        context = containers_dir()
        specs = image_specs(base_image, harnesses, defaults)
        digests = {s.tag: spec_digest(context, s, specs) for s in specs}
        todo = specs
        if only_missing:
            todo = stale_specs(specs, lambda s: image_is_current(sandbox, s.tag, digests[s.tag]))
        if not todo:
            return []
        write_build_ca(context, ca_bundle)
        built = []
        for spec in todo:
            if on_image:
                on_image(spec.tag, "start")
            try:
                build_image(sandbox, spec, context, nocache=nocache, log=log, digest=digests[spec.tag])
            except BaseException:
                if on_image:
                    on_image(spec.tag, "failed")
                raise
            built.append(spec.tag)
            if on_image:
                on_image(spec.tag, "done")
        return built
    finally:
        if own:
            sandbox.close()


def ensure_images(
    sandbox: Sandbox | None = None,
    base_image: str | None = None,
    ca_bundle: str | Path | None = None,
    log: LogFn | None = None,
    on_image: Callable[[str, str], None] | None = None,
    harnesses: Sequence[Harness] = (),
    defaults: bool = True,
) -> list[str]:
    """Build only the images that are missing or stale; return the tags built (empty when none)."""
    return build_images(
        sandbox,
        base_image,
        ca_bundle,
        only_missing=True,
        log=log,
        on_image=on_image,
        harnesses=harnesses,
        defaults=defaults,
    )
