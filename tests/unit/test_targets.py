"""Target kinds: one file, a local dataset (split dirs or flat), subsets, limits, split choice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gaia2_runner.config import TargetConfig
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.resolve import load_subset, resolve_targets

DEMO = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
DEMOS = sorted(DEMO.glob("*.json"))


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Two splits of demo scenarios, as a Gaia2 dataset directory is laid out."""
    for split, files in (("search", DEMOS[:3]), ("time", DEMOS[3:5])):
        (tmp_path / "ds" / split).mkdir(parents=True)
        for f in files:
            shutil.copy(f, tmp_path / "ds" / split / f.name)
    return tmp_path / "ds"


def ids(refs):
    return [(r.split, r.scenario_id) for r in refs]


def test_single_file():
    refs = resolve_targets(TargetConfig(scenario=DEMOS[0]))
    assert ids(refs) == [(None, DEMOS[0].stem)]


def test_split_directories(dataset):
    refs = resolve_targets(TargetConfig(dataset_root=dataset))
    assert ids(refs) == [("search", p.stem) for p in DEMOS[:3]] + [("time", p.stem) for p in DEMOS[3:5]]
    assert ids(resolve_targets(TargetConfig(dataset_root=dataset, splits=["time"]))) == [
        ("time", p.stem) for p in DEMOS[3:5]
    ]
    assert len(resolve_targets(TargetConfig(dataset_root=dataset, splits=["all"]))) == 5
    assert ids(resolve_targets(TargetConfig(dataset_root=dataset, limit=1))) == [
        ("search", DEMOS[0].stem),
        ("time", DEMOS[3].stem),
    ]


def test_flat_directory_is_one_split():
    refs = resolve_targets(TargetConfig(dataset_root=DEMO))
    assert {r.split for r in refs} == {"scenarios"} and len(refs) == len(DEMOS)


def test_unknown_split_lists_available(dataset):
    with pytest.raises(Gaia2Error, match="unknown split nope .*available: search, time"):
        resolve_targets(TargetConfig(dataset_root=dataset, splits=["nope"]))


def test_empty_dataset(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(Gaia2Error, match="holds no scenario JSON files"):
        resolve_targets(TargetConfig(dataset_root=tmp_path / "empty"))


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(["demo_cab_order", "demo_email_reply"]),
        json.dumps({"scenario_ids": ["demo_cab_order", "demo_email_reply"]}),
        "# chosen\ndemo_cab_order\n\ndemo_email_reply  # the email one\n",
    ],
)
def test_subset_formats(tmp_path, text):
    manifest = tmp_path / "subset.txt"
    manifest.write_text(text)
    assert load_subset(manifest) == ["demo_cab_order", "demo_email_reply"]
    refs = resolve_targets(TargetConfig(dataset_root=DEMO, subset=manifest))
    assert sorted(r.scenario_id for r in refs) == ["demo_cab_order", "demo_email_reply"]


def test_subset_with_unknown_ids(tmp_path):
    manifest = tmp_path / "subset.json"
    manifest.write_text(json.dumps(["demo_cab_order", "nope_1"]))
    with pytest.raises(Gaia2Error, match="ids not in the target: nope_1"):
        resolve_targets(TargetConfig(dataset_root=DEMO, subset=manifest))


def test_empty_subset_is_an_error(tmp_path):
    manifest = tmp_path / "subset.txt"
    manifest.write_text("# nothing chosen yet\n")
    with pytest.raises(Gaia2Error, match="lists no scenario ids"):
        resolve_targets(TargetConfig(dataset_root=DEMO, subset=manifest))


def test_subset_then_limit_per_split(dataset, tmp_path):
    manifest = tmp_path / "subset.json"
    manifest.write_text(json.dumps([p.stem for p in DEMOS[1:5]]))
    refs = resolve_targets(TargetConfig(dataset_root=dataset, subset=manifest, limit=1))
    assert ids(refs) == [("search", DEMOS[1].stem), ("time", DEMOS[3].stem)]


def test_missing_directory_and_plain_directory_given_as_dataset(dataset, tmp_path):
    with pytest.raises(Gaia2Error, match="not found"):
        resolve_targets(TargetConfig(dataset_root=tmp_path / "nope"))
    # `--dataset <dir>` with plain split folders (no hub README) is read in place, no cache involved.
    refs = resolve_targets(TargetConfig(dataset=str(dataset), splits=["search"]), cache_dir=tmp_path / "c")
    assert ids(refs) == [("search", p.stem) for p in DEMOS[:3]] and not (tmp_path / "c").exists()


def test_scenario_id_comes_from_the_file_not_its_name(tmp_path, write_scenario):
    from conftest import scenario_doc

    (tmp_path / "ds").mkdir()
    write_scenario("ds/renamed.json", doc=scenario_doc("real_id"))
    assert ids(resolve_targets(TargetConfig(dataset_root=tmp_path / "ds"))) == [("ds", "real_id")]
