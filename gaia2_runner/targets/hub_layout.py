"""The original Gaia2 dataset's layout on the Hugging Face hub (`meta-agents-research-environments/gaia2`),
the one ARE's `huggingface_loader.py` and the leaderboard read, and a writer for local copies of it.

On the hub each config (a capability, `mini` or `demo`) is a folder of one parquet file per split,
`<config>/<split>-00000-of-00001.parquet`, declared in README.md's YAML header (`configs:` with
`data_files`), so `datasets.load_dataset(id, name=config)` returns the config's splits. Rows hold
`id`, `scenario_id`, `split` (the hub split) and `data` (the scenario JSON as one string). Meta's
gaia2-cli copy differs: one config per capability, split `test`, the JSON in `scenario`; the
column holding the JSON tells the two apart (hf_cache.py, hub_dataset.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from gaia2_runner.config.defaults import DEFAULT_HUB_SPLIT
from gaia2_runner.errors import Gaia2Error

ORIGINAL_DATASET_ID = "meta-agents-research-environments/gaia2"
# ARE's five capabilities (CapabilityTag.gaia2_capabilities), in its order: its default configs.
CAPABILITY_CONFIGS = ("execution", "search", "adaptability", "time", "ambiguity")
MINI_CONFIG = "mini"  # a mix of the capabilities; ARE's agent2agent and noise phases run it
DEMO_CONFIG = "demo"

ROW_ID, ROW_SCENARIO_ID, ROW_SPLIT, ROW_DATA = "id", "scenario_id", "split", "data"
ORIGINAL_COLUMNS = (ROW_ID, ROW_SCENARIO_ID, ROW_SPLIT, ROW_DATA)
CLI_SCENARIO_COLUMN = "scenario"  # gaia2-cli's column holding the scenario JSON
FORMATS = ("parquet", "jsonl")
README = "README.md"


def data_file(config: str, split: str, fmt: str = "parquet") -> str:
    """A config's split file, relative to the dataset root, named as `push_to_hub` names it."""
    return f"{config}/{split}-00000-of-00001.{fmt}"


def row_id(config: str, scenario_id: str, index: int) -> str:
    """A stable row id shaped like the hub's (`0601_<32 characters>`)."""
    digest = hashlib.sha256(f"{config}/{scenario_id}".encode()).hexdigest()[:32]
    return f"{index:04d}_{digest}"


def write_hub_dataset(
    out: Path, configs: dict[str, list[tuple[str, str]]], split: str = DEFAULT_HUB_SPLIT, fmt: str = "parquet"
) -> Path:
    """Write `configs` (config -> [(scenario_id, scenario JSON text)]) under `out` in the hub's layout:
    `out/README.md` (the `configs:` YAML header) and `out/<config>/<split>-00000-of-00001.<fmt>`."""
    if fmt not in FORMATS:
        raise Gaia2Error(f"format {fmt!r}: use one of {', '.join(FORMATS)}")
    out.mkdir(parents=True, exist_ok=True)
    header = ["---", "configs:"]
    for config, scenarios in configs.items():
        rows = [
            {ROW_ID: row_id(config, sid, i), ROW_SCENARIO_ID: sid, ROW_SPLIT: split, ROW_DATA: text}
            for i, (sid, text) in enumerate(scenarios)
        ]
        target = out / data_file(config, split, fmt)
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_rows(target, rows, fmt)
        header += [
            f"- config_name: {config}",
            "  data_files:",
            f"  - split: {split}",
            f"    path: {config}/{split}-*",
        ]
    header += ["---", "", "Gaia2 scenarios in the original hub layout (a local copy).", ""]
    (out / README).write_text("\n".join(header), encoding="utf-8")
    return out


def _write_rows(target: Path, rows: list[dict[str, str]], fmt: str) -> None:
    if fmt == "jsonl":
        target.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(name, pa.string()) for name in ORIGINAL_COLUMNS])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), str(target))
