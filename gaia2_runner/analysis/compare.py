"""Two runs of the same scenarios side by side: which scenarios flipped, and by how much the
success rate moved, with a standard error that accounts for the pairing.

Per scenario, its score is the fraction of its runs that passed (a run without a verdict counts as
a failure, as in the headline rate). The delta is mean(B) - mean(A) over the scenarios both runs
have; its SE is the sample STD of the per-scenario differences / sqrt(n) (a paired comparison:
the scenario-to-scenario spread that both runs share cancels out), and its 95% interval is
delta ± t(n-1) · SE (Student's t), cut to the possible -100 … +100 points. With one scenario in
common there is no spread: no SE, no interval. Two runs with no scenario in common are an error.

Each side's verdicts come from the set asked for (output/read/verdicts.py): a run's original
verdicts and its re-judge can be compared as A and B of the same directory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.read.record import RunRecord, load_rows
from gaia2_runner.output.read.run_files import require_run
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.verdicts import CURRENT, VerdictSet, choose
from gaia2_runner.output.summary import NO_SPLIT, mean, sample_std, t_95

Key = tuple[str, str]  # (split, scenario_id)


@dataclass
class Flip:
    split: str
    scenario_id: str
    a: float  # fraction of A's runs that passed
    b: float
    a_reason: str = ""
    b_reason: str = ""
    a_dirs: list[str] = field(default_factory=list)  # its runs' directories from A's root (trace pages)
    b_dirs: list[str] = field(default_factory=list)

    @property
    def direction(self) -> str:
        return "fixed" if self.b > self.a else "broke"


@dataclass
class Delta:
    """Success rate of A and B over the scenarios both have, B - A, its paired SE and 95%
    interval (None below two scenarios), and how many scenarios B fixed and broke."""

    scenarios: int
    a: float | None
    b: float | None
    delta: float | None
    se: float | None
    low: float | None = None
    high: float | None = None
    fixed: int = 0
    broke: int = 0


@dataclass
class Comparison:
    a: Path
    b: Path
    overall: Delta
    splits: dict[str, Delta]
    flips: list[Flip] = field(default_factory=list)
    pairs: list[Flip] = field(default_factory=list)  # every scenario both have, flipped or not
    only_a: list[Key] = field(default_factory=list)
    only_b: list[Key] = field(default_factory=list)
    unchanged: int = 0
    verdicts_a: VerdictSet = field(default_factory=VerdictSet)  # the verdict set each side was read with
    verdicts_b: VerdictSet = field(default_factory=VerdictSet)


def compare(a: Path, b: Path, verdicts: tuple[str, str] = (CURRENT, CURRENT)) -> Comparison:
    """B - A over the scenarios both have, each side's verdicts from its set in `verdicts`."""
    for path in (a, b):
        require_run(path)
    set_a, set_b = choose(output_root(a), verdicts[0]), choose(output_root(b), verdicts[1])
    rows_a, rows_b = _by_scenario(load_rows(a, set_a)), _by_scenario(load_rows(b, set_b))
    common = sorted(set(rows_a) & set(rows_b))
    if not common:
        raise Gaia2Error(
            f"{a} ({_count(rows_a)}) and {b} ({_count(rows_b)}) have no finished scenario in "
            "common: compare runs of the same scenarios"
        )
    result = Comparison(
        a=a,
        b=b,
        overall=_delta(common, rows_a, rows_b),
        splits={},
        only_a=sorted(set(rows_a) - set(rows_b)),
        only_b=sorted(set(rows_b) - set(rows_a)),
        verdicts_a=set_a,
        verdicts_b=set_b,
    )
    for split in sorted({k[0] for k in common}):
        result.splits[split] = _delta([k for k in common if k[0] == split], rows_a, rows_b)
    for key in common:
        pair = Flip(
            key[0],
            key[1],
            _score(rows_a[key]),
            _score(rows_b[key]),
            _reason(rows_a[key]),
            _reason(rows_b[key]),
            [r.dir for r in rows_a[key]],
            [r.dir for r in rows_b[key]],
        )
        result.pairs.append(pair)
        if pair.a == pair.b:
            result.unchanged += 1
        else:
            result.flips.append(pair)
    result.flips.sort(key=lambda f: (f.direction, f.split, f.scenario_id))
    return result


def _by_scenario(rows: list[RunRecord]) -> dict[Key, list[RunRecord]]:
    out: dict[Key, list[RunRecord]] = {}
    for row in rows:
        out.setdefault((row.split or NO_SPLIT, row.scenario_id), []).append(row)
    return out


def _score(runs: list[RunRecord]) -> float:
    return sum(1 for r in runs if r.success is True) / len(runs)


def _reason(runs: list[RunRecord]) -> str:
    return next((r.reason for r in runs if r.success is not True and r.reason), "")


def _delta(keys: list[Key], rows_a: dict[Key, list[RunRecord]], rows_b: dict[Key, list[RunRecord]]) -> Delta:
    if not keys:
        return Delta(0, None, None, None, None)
    a = [_score(rows_a[k]) for k in keys]
    b = [_score(rows_b[k]) for k in keys]
    diffs = [y - x for x, y in zip(a, b)]
    delta = Delta(
        len(keys),
        mean(a),
        mean(b),
        mean(diffs),
        None,
        fixed=sum(d > 0 for d in diffs),
        broke=sum(d < 0 for d in diffs),
    )
    if len(diffs) > 1 and delta.delta is not None:
        delta.se = (sample_std(diffs) or 0.0) / math.sqrt(len(diffs))
        half = t_95(len(diffs) - 1) * delta.se
        delta.low, delta.high = max(-1.0, delta.delta - half), min(1.0, delta.delta + half)
    return delta


def _count(rows: dict[Key, list[RunRecord]]) -> str:
    return (
        "no finished scenario" if not rows else "1 scenario" if len(rows) == 1 else f"{len(rows)} scenarios"
    )
