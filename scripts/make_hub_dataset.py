#!/usr/bin/env python3
"""Build a tiny local copy of the Gaia2 dataset in the original hub layout from the bundled demo
scenarios (examples/scenarios/), for tests and demos of `--dataset <dir> --config ... --split ...`.

Usage: ``python scripts/make_hub_dataset.py OUT_DIR [--format parquet|jsonl] [--split validation]``

Output (``make_hub_dataset(out)``; the layout is gaia2_runner/targets/hub_layout.py's)::

    OUT_DIR/README.md                                     YAML `configs:` header, one entry per config
    OUT_DIR/<config>/<split>-00000-of-00001.<format>      rows: id, scenario_id, split, data (scenario JSON)

Configs (CONFIGS below; a scenario may sit in several, as on the hub where `mini` mixes capabilities):
``execution``, ``search``, ``adaptability``, ``time``, ``ambiguity`` (one scenario each), ``mini``
(two, one of them adaptability's ENV-event scenario) and ``demo`` (one). Every scenario finishes
in seconds with the oracle. Pass ``--dataset OUT_DIR`` to the runner; the record's ``split`` is the
config name, as ARE's report groups by config.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gaia2_runner.config.defaults import DEFAULT_HUB_SPLIT
from gaia2_runner.targets.hub_layout import DEMO_CONFIG, FORMATS, MINI_CONFIG, write_hub_dataset

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "examples" / "scenarios"
CONFIGS: dict[str, tuple[str, ...]] = {
    "execution": ("demo_calendar_add_event",),
    "search": ("demo_email_reply",),
    "adaptability": ("demo_env_message_pickup",),
    "time": ("demo_cab_order",),
    "ambiguity": ("demo_messaging_send",),
    MINI_CONFIG: ("demo_calendar_add_event", "demo_env_message_pickup"),
    DEMO_CONFIG: ("demo_contacts_update_phone",),
}


def make_hub_dataset(
    out: Path,
    fmt: str = "parquet",
    split: str = DEFAULT_HUB_SPLIT,
    configs: dict[str, tuple[str, ...]] | None = None,
) -> Path:
    """Write the bundled scenarios under `out` in the hub's layout; return `out`.

    `configs` maps a config name to demo scenario names (file stems in examples/scenarios/);
    default CONFIGS. The scenario ids are the file stems.
    """
    chosen = CONFIGS if configs is None else configs
    rows = {
        config: [(name, (SCENARIOS / f"{name}.json").read_text(encoding="utf-8")) for name in names]
        for config, names in chosen.items()
    }
    return write_hub_dataset(Path(out), rows, split=split, fmt=fmt)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to write (created)")
    parser.add_argument("--format", choices=FORMATS, default="parquet")
    parser.add_argument("--split", default=DEFAULT_HUB_SPLIT)
    args = parser.parse_args(argv)
    out = make_hub_dataset(args.out, args.format, args.split)
    print(f"wrote {len(CONFIGS)} configs ({', '.join(CONFIGS)}) to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
