"""Turn a target (one file, a local dataset, a Hugging Face dataset) into the scenarios to run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gaia2_runner.config import TargetConfig
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.inputs import parse_json, read_text
from gaia2_runner.targets.hub_dataset import dataset_root
from gaia2_runner.targets.scenario_file import load_scenario


@dataclass(frozen=True)
class ScenarioRef:
    """A checked scenario file: what the engine needs to plan and run it without parsing it again."""

    scenario_id: str
    split: str | None
    path: Path
    duration: float | None = None
    warnings: tuple[str, ...] = ()
    sha256: str = ""
    data_files: tuple[str, ...] = ()  # the Files app's data it needs (filesystem_data.py)


def scenario_ref(path: Path, split: str | None) -> ScenarioRef:
    """Parse and check `path` once (metadata.definition.scenario_id, else the file stem)."""
    scenario = load_scenario(path)
    return ScenarioRef(
        scenario.scenario_id,
        split,
        Path(path),
        scenario.duration,
        tuple(scenario.warnings),
        scenario.sha256,
        scenario.data_files,
    )


def resolve_targets(target: TargetConfig, cache_dir: Path | None = None) -> list[ScenarioRef]:
    """Every scenario of the target, split by split, after subset and limit."""
    if target.scenario is not None:
        refs = [scenario_ref(Path(target.scenario), None)]
        return _apply_subset(refs, target.subset)
    if target.dataset_root is not None:
        root, wanted = Path(target.dataset_root), target.splits
    elif target.dataset is not None:
        root, wanted = dataset_root(target, cache_dir)
    else:
        raise Gaia2Error("no target: set [target] scenario, dataset or dataset_root")
    available = local_splits(root)
    chosen = choose_splits(available, wanted, str(target.dataset or root))
    refs = []
    for split in chosen:
        files = sorted(available[split].glob("*.json"))
        split_refs = [scenario_ref(p, split) for p in files]
        refs.extend(split_refs)
    refs = _apply_subset(refs, target.subset)
    if target.limit is not None:
        refs = _limit_per_split(refs, target.limit)
    if not refs:
        raise Gaia2Error(
            f"no scenarios found in {root} (splits: {', '.join(chosen)}): check the dataset and subset"
        )
    return refs


def local_splits(root: Path) -> dict[str, Path]:
    """Split name -> directory: subdirectories holding JSON files, else the root itself."""
    if not root.is_dir():
        raise Gaia2Error(f"dataset directory {root} not found: fix the path")
    # Hidden dirs are skipped: an interrupted download leaves `.<split>.partial/` in the cache.
    subdirs = {
        d.name: d
        for d in sorted(root.iterdir())
        if d.is_dir() and not d.name.startswith(".") and any(d.glob("*.json"))
    }
    if subdirs:
        return subdirs
    if any(root.glob("*.json")):
        return {root.name: root}
    raise Gaia2Error(f"{root} holds no scenario JSON files (expected <split>/*.json or *.json)")


def choose_splits(available: dict[str, Path], wanted: list[str] | None, source: str) -> list[str]:
    """The requested splits in the order given (None or ["all"]: every split found)."""
    if not wanted or wanted == ["all"]:
        return list(available)
    unknown = [s for s in wanted if s not in available]
    if unknown:
        raise Gaia2Error(
            f"unknown split {', '.join(unknown)} in {source}: available: {', '.join(available) or 'none'}"
        )
    return list(dict.fromkeys(wanted))


def load_subset(path: Path) -> list[str]:
    """A JSON list, {"scenario_ids": [...]}, or one id per line (`#` starts a comment)."""
    text = read_text(Path(path), "subset file", "a list of scenario ids")
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        doc = parse_json(stripped, Path(path), "subset file")
        ids = doc.get("scenario_ids") if isinstance(doc, dict) else doc
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise Gaia2Error(f'{path}: expected a list of ids or {{"scenario_ids": [...]}}')
        return ids
    ids = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return [i for i in ids if i]


def _apply_subset(refs: list[ScenarioRef], subset: Path | None) -> list[ScenarioRef]:
    if subset is None:
        return refs
    wanted = load_subset(subset)
    if not wanted:
        raise Gaia2Error(f"{subset}: lists no scenario ids: add some or drop subset")
    present = {r.scenario_id for r in refs}
    missing = [i for i in wanted if i not in present]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise Gaia2Error(f"{subset}: ids not in the target: {', '.join(missing[:5])}{more}")
    keep = set(wanted)
    return [r for r in refs if r.scenario_id in keep]


def _limit_per_split(refs: list[ScenarioRef], limit: int) -> list[ScenarioRef]:
    counts: dict[str | None, int] = {}
    kept = []
    for ref in refs:
        counts[ref.split] = counts.get(ref.split, 0) + 1
        if counts[ref.split] <= limit:
            kept.append(ref)
    return kept
