"""gaia2-mini: one Gaia2 turn run by mini-swe-agent's own agent loop.

Why this glue exists: the `mini` CLI has no way to resume a conversation and prints its submission
only inside a rich transcript. Turn 1 does what `mini -y --exit-immediately -c mini.yaml -c
gaia2.yaml -t TASK` does (same config merging, model, local environment and InteractiveAgent
loop, minus the first-run wizard). A later turn reloads the messages the previous turn saved and
continues that conversation with the new user message, as mini's interactive mode does when the
user types a new task after a submission. The submission (the output after
COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT) goes to --reply, the file the turn driver reads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from minisweagent.agents.default import DefaultAgent
from minisweagent.agents.interactive import InteractiveAgent
from minisweagent.config import get_config_from_spec
from minisweagent.environments import get_environment
from minisweagent.models import get_model
from minisweagent.utils.serialize import recursive_merge


class ResumingAgent(InteractiveAgent):
    """mini's InteractiveAgent; given a saved conversation, run() continues it instead of starting anew."""

    def __init__(self, *args, history: list[dict] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._history = history

    def add_messages(self, *messages: dict) -> list[dict]:
        if self._history:
            # run() has just reset the conversation to [system, task]: put the saved one back
            # (silently: it is in the previous turn's log) and add the new user message verbatim.
            DefaultAgent.add_messages(self, *self._history)
            self._history = None
            messages = (self.model.format_message(role="user", content=self.extra_template_vars["task"]),)
        return super().add_messages(*messages)


def saved_history(trajectory: Path) -> list[dict]:
    """The previous turn's conversation, without its final `exit` entry (not a chat message)."""
    messages = json.loads(trajectory.read_text(encoding="utf-8"))["messages"]
    return [m for m in messages if m.get("role") != "exit"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-t", "--task", required=True)
    parser.add_argument("-m", "--model", required=True, help="litellm model name, e.g. openai/gpt-4.1")
    parser.add_argument("-c", "--config", action="append", default=[], help="config specs, merged in order")
    parser.add_argument(
        "--instructions", type=Path, required=True, help="the instructions file (system prompt)"
    )
    parser.add_argument(
        "--trajectory", type=Path, required=True, help="mini's trajectory file: saved each step"
    )
    parser.add_argument("--reply", type=Path, required=True, help="where the submission is written")
    parser.add_argument("--resume", action="store_true", help="continue the conversation in --trajectory")
    args = parser.parse_args(argv)

    config = recursive_merge(
        *(get_config_from_spec(spec) for spec in args.config or ["mini.yaml"]),
        {"agent": {"output_path": str(args.trajectory)}, "model": {"model_name": args.model}},
    )
    agent_config = {k: v for k, v in config.get("agent", {}).items() if k != "agent_class"}
    history = saved_history(args.trajectory) if args.resume else None
    model = get_model(config=config.get("model", {}))
    env = get_environment(config.get("environment", {}), default_type="local")
    agent = ResumingAgent(model, env, history=history, **agent_config)
    result = agent.run(args.task, instructions=args.instructions.read_text(encoding="utf-8"))
    args.reply.parent.mkdir(parents=True, exist_ok=True)
    args.reply.write_text(result.get("submission") or "", encoding="utf-8")
    print(f"gaia2-mini: exit status {result.get('exit_status')}", flush=True)
    return 0 if result.get("exit_status") == "Submitted" else 1


if __name__ == "__main__":
    sys.exit(main())
