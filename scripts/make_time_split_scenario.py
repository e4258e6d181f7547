#!/usr/bin/env python3
"""Generate tests/data/time_split_send_later.json: an action due at a later simulated time.

The user asks for a message to be sent "in 2 minutes": the oracle sends it 120 s (simulated) after
the task, so ARE's judge checks the agent's time too (an oracle action more than
`check_time_threshold_seconds` after its parent is compared within
[-pre_event_tolerance_seconds, +post_event_tolerance_seconds]). tests/e2e/test_e2e_sim_clock.py runs it
with the oracle and with scripted agents that send on time, early and late.

Made like the demo scenarios (make_demo_scenarios.py: ARE's exporter plus the same
post-processing), in the runtime image::

    podman run --rm -v "$PWD:/w" -w /w --entrypoint /opt/gaia2/venv/bin/python \\
        localhost/gaia2-runtime-base:latest scripts/make_time_split_scenario.py [OUT_DIR]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from are.simulation.apps import MessagingAppV2  # noqa: E402
from are.simulation.types import EventRegisterer  # noqa: E402

from demo_apps import make_messaging  # noqa: E402
from demo_scenario_defs import DemoScenario  # noqa: E402
from make_demo_scenarios import build_and_export  # noqa: E402  (pins PYTHONHASHSEED first)

SEND_DELAY_S = 120
MESSAGE = "The meeting room is free now, come over."


class TimeSplitSendLater(DemoScenario):
    """Send Leo Martin a message two minutes from now (simulated), then confirm."""

    scenario_id: str = "time_split_send_later"

    def init_and_populate_apps(self, *args, **kwargs) -> None:
        self.apps = self.base_apps() + [make_messaging()]

    def build_events_flow(self) -> None:
        msg = self.get_typed_app(MessagingAppV2)
        with EventRegisterer.capture_mode():
            task = self.user_says(
                "user-task",
                f"In exactly 2 minutes from now, not before, send Leo Martin this message on the "
                f'messaging app: "{MESSAGE}"',
            )
            send = self.oracle(
                msg.send_message(user_id="user-leo-martin", content=MESSAGE),
                "oracle-send-later",
                task,
                delay=SEND_DELAY_S,
            )
            done = self.agent_tells_user(
                "oracle-final-answer", f'Two minutes later I sent Leo Martin: "{MESSAGE}"', send
            )
        self.events = [task, send, done]


def main() -> int:
    out_dir = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "tests" / "data"
    )
    scenario, data = build_and_export(TimeSplitSendLater)
    path = out_dir / f"{scenario.scenario_id}.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
