"""Which images a change rebuilds: our container code is the last layer of every image, so a code
change rebuilds only the code layers, never a harness's npm or pip install (unit level: digests of a
copied containers/ tree, a stand-in for podman's image labels)."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest

from gaia2_runner.config.harnesses import get_harness
from gaia2_runner.sandbox.build_context import CONTRACT_DIR, CONTRACT_SOURCE, context_archive
from gaia2_runner.sandbox.images import (
    CODE_CONTAINERFILE,
    NODE_IMAGE,
    RUNTIME_BASE_IMAGE,
    RUNTIME_DEPS_IMAGE,
    containers_dir,
    deps_tag,
    image_specs,
    spec_digest,
    stale_specs,
)

HARNESSES = [get_harness("codex"), get_harness("hermes")]
CODEX, HERMES = (h.image for h in HARNESSES)


@pytest.fixture()
def context(tmp_path: Path) -> Path:
    copy = tmp_path / "containers"
    shutil.copytree(containers_dir(), copy, ignore=shutil.ignore_patterns("__pycache__", "build-ca.pem"))
    return copy


@pytest.fixture()
def contract(tmp_path: Path) -> Path:
    copy = tmp_path / CONTRACT_DIR
    shutil.copytree(CONTRACT_SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def built_now(context: Path, contract: Path = CONTRACT_SOURCE) -> dict[str, str]:
    """What the image labels say after a full build of `context`."""
    specs = image_specs("base:1", HARNESSES)
    return {s.tag: spec_digest(context, s, specs, contract) for s in specs}


def rebuilt_after(context: Path, labels: dict[str, str], contract: Path = CONTRACT_SOURCE) -> list[str]:
    specs = image_specs("base:1", HARNESSES)
    digests = {s.tag: spec_digest(context, s, specs, contract) for s in specs}
    return [s.tag for s in stale_specs(specs, lambda s: labels.get(s.tag) == digests[s.tag])]


def test_every_image_ends_with_the_code_layer_and_deps_images_hold_none_of_it():
    specs = {s.tag: s for s in image_specs("base:1", HARNESSES)}
    for harness in (CODEX, HERMES):
        final, deps = specs[harness], specs[deps_tag(harness)]
        assert final.containerfile == CODE_CONTAINERFILE and final.buildargs == {"FROM_IMAGE": deps.tag}
        assert final.has_code and not deps.has_code
    assert specs[deps_tag(CODEX)].buildargs["HARNESS_BASE"] == NODE_IMAGE
    assert specs[NODE_IMAGE].buildargs["RUNTIME_BASE"] == RUNTIME_DEPS_IMAGE  # Node without our code
    assert specs[RUNTIME_BASE_IMAGE].buildargs == {"FROM_IMAGE": RUNTIME_DEPS_IMAGE}
    order = list(specs)
    for spec in specs.values():  # each starts FROM one built before it
        assert all(order.index(parent) < order.index(spec.tag) for parent in spec.parents(order))


def test_a_code_change_rebuilds_only_the_code_layers(context: Path):
    labels = built_now(context)
    assert rebuilt_after(context, labels) == []
    daemon = context / "gaia2_container" / "daemon" / "session" / "core.py"
    daemon.write_text(daemon.read_text() + "\n# changed\n")
    rebuilt = rebuilt_after(context, labels)
    assert RUNTIME_DEPS_IMAGE not in rebuilt and NODE_IMAGE not in rebuilt
    assert deps_tag(CODEX) not in rebuilt and deps_tag(HERMES) not in rebuilt
    assert {RUNTIME_BASE_IMAGE, CODEX, HERMES} <= set(rebuilt)


def test_a_contract_change_rebuilds_only_the_code_layers(context: Path, contract: Path):
    labels = built_now(context, contract)
    assert rebuilt_after(context, labels, contract) == []
    routes = contract / "routes.py"
    routes.write_text(routes.read_text() + "\n# changed\n")
    rebuilt = rebuilt_after(context, labels, contract)
    assert RUNTIME_DEPS_IMAGE not in rebuilt and NODE_IMAGE not in rebuilt
    assert deps_tag(CODEX) not in rebuilt and deps_tag(HERMES) not in rebuilt
    assert {RUNTIME_BASE_IMAGE, CODEX, HERMES} <= set(rebuilt)


def test_the_build_context_holds_the_contract_beside_the_container_code(context: Path, contract: Path):
    (contract / "__pycache__").mkdir()
    (contract / "__pycache__" / "stale.pyc").write_bytes(b"x")
    with context_archive(context, contract) as body, tarfile.open(fileobj=body) as tar:
        names = set(tar.getnames())
        assert tar.extractfile(f"{CONTRACT_DIR}/routes.py").read() == (contract / "routes.py").read_bytes()
    assert {f"{CONTRACT_DIR}/constants.py", "gaia2_container/daemon/main.py", CODE_CONTAINERFILE} <= names
    assert not any("__pycache__" in name for name in names if name.startswith(CONTRACT_DIR))
    assert f"COPY {CONTRACT_DIR} " in (context / CODE_CONTAINERFILE).read_text()


def test_what_local_tools_leave_in_a_checkout_rebuilds_nothing_and_is_not_sent(context: Path):
    """A fresh clone and a checkout that ran mypy or the tests hold the same images (a cache in
    one made each rebuild every image the other built, npm installs included)."""
    labels = built_now(context)
    (context / ".mypy_cache" / "3.11").mkdir(parents=True, exist_ok=True)
    (context / ".mypy_cache" / "3.11" / "main.data.json").write_text("{}")
    (context / "gaia2_container" / "__pycache__").mkdir(exist_ok=True)
    (context / "gaia2_container" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"x")
    (context / "harnesses" / "codex" / "stray.pyc").write_bytes(b"x")
    assert rebuilt_after(context, labels) == []
    with context_archive(context) as body, tarfile.open(fileobj=body) as tar:
        names = tar.getnames()
    assert not [n for n in names if ".mypy_cache" in n or "__pycache__" in n or n.endswith(".pyc")]
    assert "harnesses/codex/profile.toml" in names


def test_a_dependency_change_rebuilds_everything_on_it(context: Path):
    labels = built_now(context)
    requirements = context / "requirements-are.txt"
    requirements.write_text(requirements.read_text() + "\n# changed\n")
    assert set(rebuilt_after(context, labels)) == set(labels)


def test_a_harness_change_rebuilds_that_harness_alone(context: Path):
    labels = built_now(context)
    profile = context / "harnesses" / "codex" / "profile.toml"
    profile.write_text(profile.read_text() + "\n# changed\n")
    assert rebuilt_after(context, labels) == [deps_tag(CODEX), CODEX]
    node = context / "harnesses" / "node" / "Containerfile"
    node.write_text(node.read_text() + "\n# changed\n")
    assert set(rebuilt_after(context, labels)) == {NODE_IMAGE, deps_tag(CODEX), CODEX}


def test_a_missing_parent_rebuilds_its_children(context: Path):
    labels = built_now(context)
    del labels[NODE_IMAGE]
    assert rebuilt_after(context, labels) == [NODE_IMAGE, deps_tag(CODEX), CODEX]
