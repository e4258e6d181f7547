#!/usr/bin/env python3
"""Generate a universe-scale Gaia2-shaped corpus: real-size scenario files written with ARE's API.

Run with the Python that has ARE 1.2.0, e.g. inside the runtime image (the host has no ARE)::

    podman run --rm --network none -v "$PWD/scripts:/scripts:ro" -v "$PWD/corpus:/out" \\
        --entrypoint /opt/gaia2/venv/bin/python localhost/gaia2-runtime-base:latest \\
        /scripts/make_gaia2_corpus.py /out

It writes into OUT_DIR:

* ``scenario_universe_<n>_<tag>.json``: one line of JSON each, ~2.6 MB, almost all of it the
  universe: the 12 Gaia2 apps under their real instance names (``AgentUserInterface``,
  ``Calendar``, ``Contacts``, ``InternalContacts``, ``Emails``, ``Messages``, ``Chats``,
  ``RentAFlat``, ``Cabs``, ``City``, ``Shopping``, ``Files``, plus ``SystemApp``) with thousands of
  records. Metadata as in real files: ``start_time`` 1728975600.0, ``duration`` (null for some),
  hints, tags (``Universe`` + the capability), and ``augmentation`` (``tool_names_mapping``,
  ``tool_descriptions_mapping``) at the end.
* ``gaia2_filesystem/demo_filesystem/...``: the bytes of every ``Files`` node; each node's
  ``real_path`` (``demo_filesystem/Documents/...``) is relative to ``gaia2_filesystem/``, as in
  Meta's ``gaia2_filesystem`` dataset.

Scenarios are ARE ``Scenario`` classes (corpus_scenarios_a.py, corpus_scenarios_b.py) over the
universes of corpus_universe*.py, exported by are_export.export_scenario (ARE's
JsonScenarioExporter plus the round-trip fixes the demo generator needs). The output is
byte-identical on every run: fixed seeds and ids, PYTHONHASHSEED pinned (the script re-executes
itself) because ARE derives per-app RNG seeds from ``hash()``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

from are_export import export_scenario  # noqa: E402
from corpus_augment import augmentation  # noqa: E402
from corpus_base import CorpusScenario, file_bytes  # noqa: E402
from corpus_scenarios_a import SCENARIOS_A  # noqa: E402
from corpus_scenarios_b import SCENARIOS_B  # noqa: E402
from corpus_stats import file_nodes, summary_line  # noqa: E402

SCENARIOS: list[type[CorpusScenario]] = [*SCENARIOS_A, *SCENARIOS_B]
FS_ROOT = "gaia2_filesystem"
FS_DIR = "demo_filesystem"
KEY_ORDER = [
    "metadata",
    "apps",
    "events",
    "completed_events",
    "world_logs",
    "version",
    "context",
    "augmentation",
]


def add_real_paths(node: dict, parent: str = "") -> None:
    """Give every file node of a Files tree its `real_path`, as real Gaia2 files do."""
    path = f"{parent}/{node['name']}" if node.get("name") else parent
    if node.get("type") == "file":
        node["real_path"] = f"{FS_DIR}{path}"
    for child in node.get("children") or []:
        add_real_paths(child, path)


def scenario_document(scenario: CorpusScenario) -> dict:
    data = export_scenario(scenario)
    for app in data["apps"]:
        if app.get("class_name") == "SandboxLocalFileSystem":
            add_real_paths(app["app_state"]["files"])
    data["augmentation"] = augmentation(scenario.apps or [])
    return {key: data[key] for key in [*KEY_ORDER, *(k for k in data if k not in KEY_ORDER)] if key in data}


def write_filesystem(out_dir: Path, docs: list[dict], universes: set[int]) -> int:
    """Write the bytes every file node points at; refuse a node without bytes."""
    contents: dict[str, bytes] = {}
    for universe in sorted(universes):
        for path, data in file_bytes(universe).items():
            if contents.setdefault(path, data) != data:
                raise SystemExit(f"two universes disagree on the bytes of {path}")
    for doc in docs:
        for app in doc["apps"]:
            if app.get("class_name") == "SandboxLocalFileSystem":
                for node in file_nodes(app["app_state"]["files"]):
                    if node["real_path"].removeprefix(f"{FS_DIR}/") not in contents:
                        raise SystemExit(f"no bytes for {node['real_path']}")
    for path, data in sorted(contents.items()):
        target = out_dir / FS_ROOT / FS_DIR / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return len(contents)


def main() -> int:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("gaia2_corpus")
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    docs, universes = [], set()
    for cls in SCENARIOS:
        scenario = cls()
        doc = scenario_document(scenario)
        text = json.dumps(doc, ensure_ascii=False) + "\n"
        path = out_dir / f"{scenario.scenario_id}.json"
        path.write_text(text, encoding="utf-8")
        docs.append(doc)
        universes.add(cls.universe)
        reads = " (reads Files bytes)" if cls.reads_file_bytes else ""
        print(summary_line(f"{path.name} [{cls.__name__}]{reads}", len(text.encode()), doc), flush=True)
    n_files = write_filesystem(out_dir, docs, universes)
    print(
        f"wrote {len(docs)} scenarios and {n_files} files under {out_dir / FS_ROOT / FS_DIR} "
        f"in {time.monotonic() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
