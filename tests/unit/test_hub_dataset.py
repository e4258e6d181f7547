"""`--dataset` in the original Gaia2 hub layout (configs, hub splits, JSON in `data`): a local copy
built by scripts/make_hub_dataset.py and read through `datasets` as the hub would be (the hub is
not reachable here), told apart from gaia2-cli's layout, its configs and split chosen, its errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dataset_support import run_cli
from gaia2_runner.config import TargetConfig, apply_overrides, load_config
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.targets.hf_cache import dataset_cache_dir
from gaia2_runner.targets.hub_dataset import HUB_DIR, LAYOUT_FILE, ORIGINAL
from gaia2_runner.targets.hub_layout import (
    CAPABILITY_CONFIGS,
    ORIGINAL_DATASET_ID,
    README,
    data_file,
    write_hub_dataset,
)
from gaia2_runner.targets.resolve import resolve_targets
from make_hub_dataset import CONFIGS, SCENARIOS, make_hub_dataset


@pytest.fixture(scope="module")
def hub_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_hub_dataset(tmp_path_factory.mktemp("hub") / "gaia2")


def resolved(dataset: Path | str, cache: Path, **target) -> list[tuple[str | None, str]]:
    return [
        (r.split, r.scenario_id)
        for r in resolve_targets(TargetConfig(dataset=str(dataset), **target), cache_dir=cache)
    ]


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_a_config_of_a_local_copy_runs_with_the_config_as_split(tmp_path: Path, fmt: str) -> None:
    copy = make_hub_dataset(tmp_path / "gaia2", fmt=fmt)
    assert (copy / README).is_file() and (copy / data_file("mini", "validation", fmt)).is_file()
    cache = tmp_path / "cache"
    assert resolved(copy, cache, config=["mini"], split="validation") == [
        ("mini", n) for n in CONFIGS["mini"]
    ]
    root = dataset_cache_dir(str(copy), None, cache)
    assert json.loads((root / LAYOUT_FILE).read_text()) == ORIGINAL
    first = CONFIGS["mini"][0]
    cached = root / HUB_DIR / "validation" / "mini" / f"{first}.json"
    assert cached.read_text() == (SCENARIOS / f"{first}.json").read_text()
    assert sorted(p.name for p in (root / HUB_DIR / "validation").iterdir()) == [
        "mini"
    ]  # only what was asked


def test_a_local_copy_rebuilt_in_place_is_read_afresh_not_from_the_cache(tmp_path: Path) -> None:
    copy = make_hub_dataset(tmp_path / "gaia2", fmt="jsonl", configs={"mini": CONFIGS["mini"]})
    cache = tmp_path / "cache"
    assert resolved(copy, cache, config=["mini"]) == [("mini", n) for n in CONFIGS["mini"]]
    make_hub_dataset(copy, fmt="jsonl", configs={"mini": ("demo_cab_order",)})  # same path, new rows
    assert resolved(copy, cache, config=["mini"]) == [("mini", "demo_cab_order")]


def test_default_is_the_five_capabilities_all_adds_mini_and_demo_splits_names_configs(hub_copy, tmp_path):
    cache = tmp_path / "cache"
    assert resolved(hub_copy, cache) == [(c, CONFIGS[c][0]) for c in CAPABILITY_CONFIGS]
    everything = resolved(hub_copy, cache, config=["all"])
    assert [s for s, _ in everything] == [c for c in CONFIGS for _ in CONFIGS[c]]
    assert resolved(hub_copy, cache, splits=["demo"]) == [("demo", CONFIGS["demo"][0])]
    assert resolved(hub_copy, cache, config=["time", "mini"], limit=1) == [
        ("time", CONFIGS["time"][0]),
        ("mini", CONFIGS["mini"][0]),
    ]


def test_unknown_config_or_split_names_the_ones_that_exist(hub_copy, tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(Gaia2Error) as exc:
        resolved(hub_copy, cache, config=["mini", "nope"])
    assert exc.value.message == (
        f"unknown config nope in {hub_copy}: available: execution, search, adaptability, "
        "time, ambiguity, mini, demo"
    )
    assert not (dataset_cache_dir(str(hub_copy), None, cache) / HUB_DIR).exists()  # nothing fetched
    with pytest.raises(Gaia2Error) as exc:
        resolved(hub_copy, cache, config=["mini"], split="test")
    assert (
        exc.value.message == f"unknown split test in {hub_copy} config mini: available: validation (--split)"
    )


def test_the_real_id_is_read_from_the_cache_without_the_hub(hub_copy, tmp_path, monkeypatch):
    import datasets

    cache = tmp_path / "cache"
    resolved(hub_copy, cache, config=["mini"])
    shutil.copytree(
        dataset_cache_dir(str(hub_copy), None, cache), dataset_cache_dir(ORIGINAL_DATASET_ID, None, cache)
    )

    def no_hub(*args, **kwargs):
        raise AssertionError("the hub was asked")

    monkeypatch.setattr(datasets, "load_dataset", no_hub)
    monkeypatch.setattr(datasets, "get_dataset_config_names", no_hub)
    assert resolved(ORIGINAL_DATASET_ID, cache, config=["mini"], split="validation") == [
        ("mini", n) for n in CONFIGS["mini"]
    ]
    with pytest.raises(Gaia2Error) as exc:  # a config not cached yet needs the hub: its failure is one line
        resolved(ORIGINAL_DATASET_ID, cache, config=["time"])
    assert exc.value.message == (
        f"could not download {ORIGINAL_DATASET_ID} from Hugging Face: the hub was "
        "asked; check the id, HF_TOKEN or your network"
    )


def test_gaia2_cli_layout_refuses_config_and_split(tmp_path):
    import datasets

    copy = tmp_path / "gaia2-cli"
    (copy / "search").mkdir(parents=True)
    demo = SCENARIOS / "demo_email_reply.json"
    datasets.Dataset.from_dict({"scenario_id": [demo.stem], "scenario": [demo.read_text()]}).to_parquet(
        str(copy / "search" / "test-00000-of-00001.parquet")
    )
    (copy / README).write_text(
        "---\nconfigs:\n- config_name: search\n  data_files:\n  - split: test\n    path: search/test-*\n---\n"
    )
    cache = tmp_path / "cache"
    with pytest.raises(
        Gaia2Error,
        match=r"is in gaia2-cli's layout \(its configs are the splits search\): "
        "choose them with --splits instead$",
    ):
        resolved(copy, cache, config=["search"])
    assert resolved(copy, cache, splits=["search"]) == [("search", demo.stem)]


def test_rows_of_neither_layout_and_a_plain_directory_with_config_are_refused(tmp_path):
    other = write_hub_dataset(tmp_path / "other", {"mini": [("a", "{}")]})
    for file in other.glob("*/*.parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"scenario_id": ["a"], "json": ["{}"]}), str(file))
    with pytest.raises(
        Gaia2Error, match=r"config mini: rows have json, scenario_id, neither .*: not a Gaia2 "
    ):
        resolved(other, tmp_path / "cache", config=["mini"])
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(SCENARIOS / "demo_email_reply.json", plain)
    with pytest.raises(Gaia2Error, match=r"holds scenario files, not a dataset in the hub's layout"):
        resolved(plain, tmp_path / "cache", config=["mini"])


def test_a_config_without_splits_is_one_error_not_a_stop_iteration(tmp_path, monkeypatch):
    copy = write_hub_dataset(tmp_path / "empty", {"mini": [("a", "{}")]})
    import gaia2_runner.targets.hub_dataset as hub_dataset

    monkeypatch.setattr(
        hub_dataset, "_load_config", lambda *_args: {}
    )  # what `datasets` gives a config with no split
    with pytest.raises(
        Gaia2Error, match=r"config mini: no splits \(no rows at all\): not a Gaia2 scenario dataset"
    ):
        resolved(copy, tmp_path / "cache", config=["mini"])


def test_a_scenario_id_twice_in_one_config_is_refused(tmp_path):
    text = (SCENARIOS / "demo_cab_order.json").read_text()
    copy = write_hub_dataset(tmp_path / "dup", {"time": [("x", text), ("x", text)]}, fmt="jsonl")
    with pytest.raises(Gaia2Error, match="config time split validation: scenario id x appears twice"):
        resolved(copy, tmp_path / "cache", config=["time"])


def test_config_and_split_need_a_dataset_target(tmp_path):
    base = {"output_dir": str(tmp_path / "out")}
    with pytest.raises(Gaia2Error, match=r"^--config: selects a hub dataset's config or split: use it with "):
        apply_overrides(load_config(None), {**base, "dataset_root": str(SCENARIOS), "hub_config": "mini"})
    with pytest.raises(Gaia2Error, match=r"^--split: selects"):
        apply_overrides(
            load_config(None),
            {**base, "scenario": str(SCENARIOS / "demo_cab_order.json"), "hub_split": "validation"},
        )
    config = apply_overrides(
        load_config(None), {**base, "dataset": "org/name", "hub_config": "mini,time", "hub_split": "test"}
    )
    assert (config.target.config, config.target.split) == (["mini", "time"], "test")


def test_run_dataset_plans_a_config_and_refuses_an_unknown_one_in_one_line(hub_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("GAIA2_CACHE_DIR", str(tmp_path / "cache"))
    base = [
        "run-dataset",
        "--dataset",
        str(hub_copy),
        "--agent",
        "oracle",
        "--output-dir",
        str(tmp_path / "out"),
        "--dry-run",
        "--no-preflight",
    ]
    proc = run_cli(*base, "--config", "mini", "--split", "validation")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "configs mini; hub split validation" in proc.stdout
    assert f"{len(CONFIGS['mini'])} of {len(CONFIGS['mini'])} runs would start" in proc.stdout
    proc = run_cli(*base, "--config", "minny")
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 2 and errors == [
        f"error: unknown config minny in {hub_copy}: available: execution, "
        "search, adaptability, time, ambiguity, mini, demo"
    ]
    assert "Traceback" not in proc.stderr
