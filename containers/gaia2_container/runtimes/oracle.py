"""The oracle agent: replays the scenario's ground-truth actions through the same tool API.

It is judged exactly like any agent: its calls become agent events in ARE's log and ARE's judge
compares them with the oracle run. Each action waits for its dependencies (scenario events or
earlier actions) and then for its delay in simulated time, as in ARE's event graph.

The daemon gives the oracle a manual clock (daemon/clock/sim.py): instead of waiting in real time
it asks the daemon to move simulated time to when its next action is due, or to the next scenario
event, so a run costs no real-time pacing. With a real clock (older daemons) it waits as before.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

from gaia2_contract import routes

from .tools_client import ToolApiError, call_tool, request, scenario_over

log = logging.getLogger("gaia2.oracle")

POLL_S = 0.1
# Longer simulated waits are skipped with SystemApp.wait_for_notification, as a patient agent would.
JUMP_THRESHOLD_S = 5.0


def _sim_time() -> float:
    return float(request("GET", routes.TIME)["sim_time"])


def _wait_until_ready(limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while True:
        try:
            request("GET", routes.TOOLS, timeout=2.0)
            return
        except ToolApiError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _advance(until: float | None) -> dict[str, Any]:
    """Manual clock: move simulated time to `until`, or to the next scenario event (None)."""
    moved = request("POST", routes.ORACLE_ADVANCE, {"until": until}, timeout=600.0)
    log.debug("advance to %s: %s", until, moved)
    return moved


def _wait_sim(due: float, can_jump: bool, manual: bool = False) -> None:
    if manual:
        while _sim_time() < due:
            if _advance(due)["reason"] in ("stopped", "paused"):
                return
        return
    while True:
        remaining = due - _sim_time()
        if remaining <= 0:
            return
        if can_jump and remaining > JUMP_THRESHOLD_S:
            call_tool("SystemApp__wait_for_notification", {"timeout": int(remaining)})
            continue
        time.sleep(min(POLL_S, remaining))


# ARE's noise mode makes any tool call fail at random (AppTool.failure_message_template); the
# failed call never reaches the app nor ARE's log, so retrying is what a sensible agent does.
NOISE_FAILURE = "Internal error - Retry again later"
MAX_NOISE_RETRIES = 50


def call_retrying(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    outcome = call_tool(tool, args)
    for _ in range(MAX_NOISE_RETRIES):
        if outcome.get("ok") or NOISE_FAILURE not in str(outcome.get("error")):
            break
        log.info("%s failed at random (noise): retrying", tool)
        outcome = call_tool(tool, args)
    return outcome


class OracleReplay:
    def __init__(self, actions: list[dict[str, Any]], tool_names: set[str], manual: bool = False) -> None:
        self.pending = list(actions)
        self.done_ids: set[str] = set()
        self.ready_since: dict[str, float] = {}
        self.can_jump = "SystemApp__wait_for_notification" in tool_names
        self.manual = manual

    def _satisfied(self, action: dict[str, Any], fired: set[str]) -> bool:
        return all(dep in self.done_ids or dep in fired for dep in action["dependencies"])

    def step(self) -> bool:
        """Run every action whose turn has come; False once nothing is left."""
        if not self.pending:
            return False
        fired = set(request("GET", routes.ORACLE_COMPLETED)["event_ids"])
        now = _sim_time()
        for action in self.pending:
            if action["event_id"] not in self.ready_since and self._satisfied(action, fired):
                self.ready_since[action["event_id"]] = now
        runnable = [a for a in self.pending if a["event_id"] in self.ready_since]
        if not runnable:
            if self.manual:  # nothing to do before the next scenario event: go there
                if _advance(None)["reason"] in ("stopped", "paused"):
                    time.sleep(POLL_S)
            else:
                time.sleep(POLL_S)
            return True
        action = min(runnable, key=lambda a: self.ready_since[a["event_id"]] + a["relative_time"])
        due = self.ready_since[action["event_id"]] + action["relative_time"]
        if self.manual and due > now:
            # Move to the due time, stopping at any scenario event on the way: it may make an
            # action ready that is due earlier, so choose again.
            if _advance(due)["reason"] == "event":
                return True
        _wait_sim(due, self.can_jump, self.manual)
        outcome = call_retrying(action["tool"], action["args"])
        if outcome.get("ok"):
            log.info("replayed %s", action["tool"])
        else:
            log.warning("replayed %s: tool error: %s", action["tool"], outcome.get("error"))
        self.pending.remove(action)
        self.done_ids.add(action["event_id"])
        # Actions that depended on this one become ready now, not at the next poll.
        fired_now = set(request("GET", routes.ORACLE_COMPLETED)["event_ids"])
        now = _sim_time()
        for other in self.pending:
            if other["event_id"] not in self.ready_since and self._satisfied(other, fired_now):
                self.ready_since[other["event_id"]] = now
        return True


def main() -> int:
    logging.basicConfig(
        level=os.environ.get("GAIA2_LOG_LEVEL", "INFO"), format="%(asctime)s oracle: %(message)s"
    )
    drop = os.environ.get("GAIA2_ORACLE_DROP_ACTION")  # testing aid: replay a deliberately broken oracle
    try:
        _wait_until_ready()
        plan = request("GET", routes.ORACLE_PLAN)["actions"]
        tools = {t["name"] for t in request("GET", routes.TOOLS)["tools"]}
        manual = request("GET", routes.TIME).get("clock") == "manual"
    except ToolApiError as exc:
        print(f"oracle: {exc}", file=sys.stderr)
        return 1
    if drop is not None:
        plan = _drop_action(plan, drop)
    log.info("replaying %d oracle actions (%s clock)", len(plan), "manual" if manual else "real-time")
    replay = OracleReplay(plan, tools, manual)
    try:
        while replay.step():
            if request("GET", routes.inbox_after(999999))["done"]:
                break
    except ToolApiError as exc:
        if scenario_over():
            return 0
        print(f"oracle: {exc}", file=sys.stderr)
        return 1
    # Stay until the daemon has judged the last turn, so exiting never races the verdict.
    while not scenario_over():
        time.sleep(0.2)
    return 0


def _drop_action(plan: list[dict[str, Any]], which: str) -> list[dict[str, Any]]:
    """Remove one write action that is not the final answer (by tool name, or the first one)."""
    candidates = [a for a in plan if a["tool"] != "AgentUserInterface__send_message_to_user"]
    victim = next((a for a in candidates if a["tool"] == which), candidates[0] if candidates else None)
    if victim is None:
        return plan
    log.warning("GAIA2_ORACLE_DROP_ACTION: not replaying %s", victim["tool"])
    kept = [a for a in plan if a is not victim]
    for a in kept:
        if victim["event_id"] in a["dependencies"]:
            a["dependencies"] = [d for d in a["dependencies"] if d != victim["event_id"]] + victim[
                "dependencies"
            ]
    return kept


if __name__ == "__main__":
    raise SystemExit(main())
