"""The Hugging Face path, on a local dataset in the hub's layout built with `datasets` itself
(the hub is not reachable here): one config per split, split `test`, rows scenario_id + scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia2_runner.config import TargetConfig
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.hf_cache import cache_root, dataset_cache_dir
from gaia2_runner.targets.resolve import resolve_targets

DEMOS = sorted((Path(__file__).resolve().parents[2] / "examples" / "scenarios").glob("*.json"))
SPLITS = {"search": DEMOS[:2], "time": DEMOS[2:5]}


@pytest.fixture
def hub_copy(tmp_path: Path) -> Path:
    import datasets

    root = tmp_path / "gaia2-cli"
    configs = []
    for split, files in SPLITS.items():
        rows = {"scenario_id": [f.stem for f in files], "scenario": [f.read_text() for f in files]}
        (root / split).mkdir(parents=True)
        datasets.Dataset.from_dict(rows).to_parquet(str(root / split / "test-00000-of-00001.parquet"))
        configs.append(
            f"- config_name: {split}\n  data_files:\n  - split: test\n    path: {split}/test-*.parquet"
        )
    (root / "README.md").write_text("---\nconfigs:\n" + "\n".join(configs) + "\n---\n# local copy\n")
    return root


def unreachable(*args, **kwargs):
    raise ConnectionError("the hub is not reachable")


def test_hub_layout_materialises_once_and_is_reused(hub_copy, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    refs = resolve_targets(TargetConfig(dataset=str(hub_copy), splits=["all"]), cache_dir=cache)
    assert sorted((r.split, r.scenario_id) for r in refs) == sorted(
        (split, f.stem) for split, files in SPLITS.items() for f in files
    )
    cached = dataset_cache_dir(str(hub_copy), None, cache)
    assert (cached / "search" / f"{DEMOS[0].stem}.json").read_text() == DEMOS[0].read_text()
    assert (cached / "search" / ".complete").is_file() and (cached / "time" / ".complete").is_file()
    # Reuse: with the hub unreachable, resolving again must not touch the loader (nor the split list).
    monkeypatch.setattr("datasets.load_dataset", unreachable)
    monkeypatch.setattr("datasets.get_dataset_config_names", unreachable)
    again = resolve_targets(TargetConfig(dataset=str(hub_copy), splits=["time"]), cache_dir=cache)
    assert [r.scenario_id for r in again] == [f.stem for f in SPLITS["time"]]
    assert len(resolve_targets(TargetConfig(dataset=str(hub_copy), splits=["all"]), cache_dir=cache)) == 5


def test_unknown_split_in_hub_dataset_lists_the_real_ones(hub_copy, tmp_path):
    with pytest.raises(Gaia2Error, match="unknown split nope in .*: available: search, time$"):
        resolve_targets(
            TargetConfig(dataset=str(hub_copy), splits=["search", "nope"]), cache_dir=tmp_path / "c"
        )
    assert not (dataset_cache_dir(str(hub_copy), None, tmp_path / "c") / "search").exists()  # nothing fetched


def test_only_requested_splits_are_fetched_and_subset_limit_apply(hub_copy, tmp_path):
    manifest = tmp_path / "ids.txt"
    manifest.write_text("\n".join(f.stem for f in SPLITS["time"][1:]) + "\n")
    refs = resolve_targets(
        TargetConfig(dataset=str(hub_copy), splits=["time"], subset=manifest, limit=1),
        cache_dir=tmp_path / "c",
    )
    assert [(r.split, r.scenario_id) for r in refs] == [("time", SPLITS["time"][1].stem)]
    cached = dataset_cache_dir(str(hub_copy), None, tmp_path / "c")
    assert sorted(p.name for p in cached.iterdir() if p.is_dir()) == ["time"]


def test_interrupted_download_is_redone_and_its_leftovers_ignored(hub_copy, tmp_path):
    cached = dataset_cache_dir(str(hub_copy), None, tmp_path / "c")
    (cached / ".search.partial").mkdir(parents=True)
    (cached / ".search.partial" / "half.json").write_text("{")
    (cached / "search").mkdir()
    (cached / "search" / "stale.json").write_text("{}")  # no .complete marker: not trusted
    refs = resolve_targets(TargetConfig(dataset=str(hub_copy), splits=["all"]), cache_dir=tmp_path / "c")
    assert sorted({r.split for r in refs}) == ["search", "time"]
    assert "stale" not in {r.scenario_id for r in refs} and len(refs) == 5


def test_cache_location_env_override_and_revision(tmp_path, monkeypatch):
    monkeypatch.setenv("GAIA2_CACHE_DIR", str(tmp_path / "envcache"))
    assert dataset_cache_dir("org/name", None) == tmp_path / "envcache" / "datasets" / "org__name" / "main"
    assert (
        dataset_cache_dir("org/name", "v1.0", tmp_path / "x")
        == tmp_path / "x" / "datasets" / "org__name" / "v1.0"
    )
    monkeypatch.delenv("GAIA2_CACHE_DIR")
    assert cache_root() == Path.home() / ".cache" / "gaia2-runner"


def test_unreachable_dataset_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(Gaia2Error) as exc:
        resolve_targets(
            TargetConfig(dataset="meta-agents-research-environments/gaia2-cli", splits=["search"]),
            cache_dir=tmp_path / "c",
        )
    assert (
        "could not download meta-agents-research-environments/gaia2-cli from Hugging Face"
        in exc.value.message
    )
    assert "\n" not in exc.value.message
