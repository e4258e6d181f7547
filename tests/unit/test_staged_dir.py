"""Directory exports are replaced whole (analysis/staged_dir.py): nothing of an earlier export is left
behind, a failed export leaves the earlier one intact, a directory of other files is never deleted."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia2_runner.analysis.staged_dir import EXPORT_MARKER, staged_dir
from gaia2_runner.errors import Gaia2Error


def export_files(dest: Path, names: list[str], named: bool = True) -> None:
    with staged_dir(dest, named) as staging:
        for name in names:
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_text(name)


def test_a_second_export_replaces_the_first_whole(tmp_path: Path) -> None:
    dest = tmp_path / "export_leaderboard"
    export_files(dest, ["old_config/validation.parquet", "README.md"])
    export_files(dest, ["mini/validation.parquet", "README.md"])
    assert sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file()) == [
        EXPORT_MARKER,
        "README.md",
        "mini/validation.parquet",
    ]
    assert [p.name for p in tmp_path.iterdir()] == [dest.name]  # no staging or old copy left


def test_a_failed_export_leaves_the_earlier_one_as_it_was(tmp_path: Path) -> None:
    dest = tmp_path / "export_are"
    export_files(dest, ["hf/a.json"])
    with pytest.raises(RuntimeError), staged_dir(dest) as staging:
        (staging / "partial.json").write_text("{")
        raise RuntimeError("killed half way")
    assert (dest / "hf" / "a.json").read_text() == "hf/a.json" and not (dest / "partial.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == [dest.name]


def test_a_directory_of_other_files_is_refused_not_deleted(tmp_path: Path) -> None:
    mine = tmp_path / "thesis"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("precious")
    with pytest.raises(Gaia2Error, match=r"--out .*thesis: exists and holds files not written by an export"):
        export_files(mine, ["README.md"])
    assert [p.name for p in mine.iterdir()] == ["chapter1.tex"]
    empty = tmp_path / "empty"
    empty.mkdir()
    export_files(empty, ["README.md"])  # an empty directory is fine
    assert (empty / "README.md").is_file()


def test_a_file_or_a_link_is_never_replaced(tmp_path: Path) -> None:
    mine = tmp_path / "results.json"
    mine.write_text("precious")
    with pytest.raises(Gaia2Error, match=r"--out .*results.json: exists and is not a directory"):
        export_files(mine, ["README.md"])
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "export_are"
    link.symlink_to(target)
    with pytest.raises(Gaia2Error, match="is not a directory"):
        export_files(link, ["README.md"], named=False)
    assert mine.read_text() == "precious" and link.is_symlink() and list(target.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "export_are", "results.json"]


def test_the_default_place_of_an_export_made_before_the_marker_is_replaced(tmp_path: Path) -> None:
    dest = tmp_path / "export_leaderboard"
    (dest / "old_config").mkdir(parents=True)
    (dest / "README.md").write_text("an export from an earlier version: no marker")
    export_files(dest, ["mini/validation.parquet"], named=False)
    assert sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file()) == [
        EXPORT_MARKER,
        "mini/validation.parquet",
    ]


def test_when_the_new_export_cannot_be_put_in_place_the_old_one_goes_back(
    tmp_path: Path, monkeypatch
) -> None:
    dest = tmp_path / "export_are"
    export_files(dest, ["hf/a.json"])
    real_rename = Path.rename

    def failing(self: Path, target):
        if self.name.startswith(".export_are.partial-"):
            raise OSError(39, "Directory not empty")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", failing)
    with pytest.raises(
        Gaia2Error, match="could not put the new export in place .*the previous one is unchanged"
    ):
        export_files(dest, ["hf/b.json"])
    assert (dest / "hf" / "a.json").is_file() and [p.name for p in tmp_path.iterdir()] == [dest.name]
