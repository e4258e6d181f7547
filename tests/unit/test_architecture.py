"""The layer order and the module map of docs/design/architecture.md hold for the code.

scripts/module_map.py owns the layers; these tests read every import (lazy and type-only ones too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import module_map


@pytest.fixture(scope="module")
def modules() -> dict[str, Path]:
    return module_map.module_files()


@pytest.fixture(scope="module")
def edges(modules) -> list[module_map.Import]:
    return module_map.imports(modules)


def test_the_map_sees_all_three_packages(modules, edges) -> None:
    tops = {name.split(".")[0] for name in modules}
    assert tops == set(module_map.PACKAGES)
    assert len(modules) > 200 and len(edges) > 500  # a broken walk would pass the checks below vacuously


def test_no_import_runs_up_the_layers_or_across_packages(modules, edges) -> None:
    assert module_map.violations(edges, modules) == []


def test_no_import_circle(edges) -> None:
    assert module_map.circles(edges) == []


def test_the_checks_catch_what_they_guard() -> None:
    """An upward import and a circle, made up, are reported: the checks above are not empty rules."""
    files = {
        "gaia2_runner.config.x": module_map.ROOT / "a.py",
        "gaia2_runner.cli.y": module_map.ROOT / "b.py",
    }
    up = module_map.Import("gaia2_runner.config.x", "gaia2_runner.cli.y", 3)
    back = module_map.Import("gaia2_runner.cli.y", "gaia2_runner.config.x", 5)
    assert module_map.violations([up, back], files) == [
        "a.py:3: gaia2_runner.config.x imports gaia2_runner.cli.y, a higher layer"
    ]
    assert module_map.circles([up, back]) == [["gaia2_runner.cli.y", "gaia2_runner.config.x"]]
    cross = module_map.Import("gaia2_runner.config.x", "gaia2_container.daemon", 7)
    files["gaia2_container.daemon"] = module_map.ROOT / "c.py"
    assert "gaia2_runner may not use gaia2_container" in module_map.violations([cross], files)[0]


def test_architecture_map_is_current() -> None:
    doc = module_map.ROOT / module_map.DOC
    assert doc.read_text(encoding="utf-8") == module_map.rendered_doc(), (
        f"{module_map.DOC} is stale: run .venv/bin/python scripts/gen_reference.py"
    )
