"""The output package's reader: one way to name an output directory, one row type, layers downward."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gaia2_runner.analysis import compare, describe, export_rows, load_rows
from gaia2_runner.output.read.record import COLUMNS, RunRecord
from viewer_synth import dataset_tree

PACKAGE = Path(__file__).resolve().parents[2] / "gaia2_runner"


def test_relative_absolute_linked_and_home_paths_give_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    dataset_tree(out, 6, pass_at=2)
    (tmp_path / "link").symlink_to(out, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    expected = [r.to_dict() for r in load_rows(out)]
    assert len(expected) == 12 and {r["run"] for r in expected} == {1, 2}
    for given in ("out", Path("out"), "./out", str(out), "link", "~/out", Path("~") / "link"):
        assert [r.to_dict() for r in load_rows(given)] == expected, given
        assert describe(Path(given)).runs == 12, given
    # the symptom: compare and export found nothing with relative paths
    assert compare(Path("out"), Path("link")).unchanged == 6
    assert export_rows(Path("out"), "jsonl")[1] == 12


def test_one_record_type_exports_its_columns_and_caches_itself(tmp_path: Path) -> None:
    dataset_tree(tmp_path / "out", 2, pass_at=1)
    rows = load_rows(tmp_path / "out")
    assert all(type(r) is RunRecord and r.layout_run is None and r.run == 1 for r in rows)
    assert tuple(rows[0].to_dict()) == COLUMNS and "layout_run" not in COLUMNS
    assert RunRecord.from_json(rows[0].to_json()) == rows[0]
    assert RunRecord.from_json({**rows[0].to_json(), "status": "maybe"}) is None


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("output", ("viewer", "analysis", "engine", "cli")),
        ("analysis", ("viewer", "engine", "cli")),
        ("viewer", ("analysis", "engine", "cli")),
    ],
)
def test_layers_import_only_downward(package: str, forbidden: tuple[str, ...]) -> None:
    bad = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for name in _imports(path)
        if any(name == f"gaia2_runner.{f}" or name.startswith(f"gaia2_runner.{f}.") for f in forbidden)
    ]
    assert not bad
