"""Which scenarios a shard runs: a deterministic, balanced partition of the planned scenarios.

Scenarios (not runs) are partitioned, so all k runs of a scenario stay in one shard. The planned
scenarios are sorted by (split, scenario_id) and dealt round-robin: the j-th (0-based) goes to
shard (j mod N) + 1. Every shard gets the same number of scenarios, give or take one, and the
slice depends only on the planned set and N (not on file order, the machine or the time), so
every node computing the plan alone agrees on who runs what. Splits interleave, so each shard
also gets a near-equal share of every split (splits differ in typical duration).

`plan_identity` names the whole planned set, so `aggregate` can tell shards of one plan from
shards of another and count what the union must hold.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaia2_runner.targets.resolve import ScenarioRef


def scenario_key(split: str | None, scenario_id: str) -> str:
    """`split/scenario_id` (`/id` without a split): how shards and aggregate name a scenario."""
    return f"{split or ''}/{scenario_id}"


def _order(ref: ScenarioRef) -> tuple[str, str]:
    return (ref.split or "", ref.scenario_id)


def shard_refs(refs: Sequence[ScenarioRef], shard: tuple[int, int] | None) -> list[ScenarioRef]:
    """The scenarios of shard I of N (all of them without a shard), in the planned order."""
    if shard is None:
        return list(refs)
    index, count = shard
    ordered = sorted(refs, key=_order)
    mine = {id(ref) for j, ref in enumerate(ordered) if j % count == index - 1}
    return [ref for ref in refs if id(ref) in mine]


def plan_identity(refs: Sequence[ScenarioRef], shard: tuple[int, int], pass_at: int) -> dict[str, Any]:
    """What a shard records about the plan it belongs to (written into its run_config.json)."""
    keys = sorted(scenario_key(ref.split, ref.scenario_id) for ref in refs)
    digest = hashlib.sha256("\n".join(keys).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return {
        "index": shard[0],
        "count": shard[1],
        "partition": "round-robin over sorted (split, scenario_id)",
        "planned_scenarios": len(keys),
        "pass_at": pass_at,
        "plan_digest": digest,
    }
