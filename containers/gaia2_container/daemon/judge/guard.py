"""The agent's text on its way into ARE's LLM judge: bounded, fenced, and unable to carry a verdict.

ARE 1.2.0's soft checkers (`LLMChecker` in are.simulation.validation.utils.llm_utils) render the
agent's arguments into the judge prompt as they are, and count a reply as a pass when it contains
the success marker (`[[Success]]`, `[[True]]`) anywhere. So a judge model that quotes its input
passes any answer that carries the marker, and an answer of any size goes to the provider (a
context-overflow 400 that ends the run without a verdict, and a bill). We keep ARE's checkers,
prompts, votes and reply parsing, and change only the agent's text (`agent_action_call`):

- over AGENT_TEXT_CAP characters it is not sent: the check fails, as a rejected check does in ARE
  (not cut to fit: the judge would then rule on text that is not what the agent sent), and the
  judge trace names the size (trace.py);
- a run of brackets is broken up (`[[` -> `[ [`), so none of ARE's markers can appear in it, quoted
  or not, and a marker in the judge's reply is always the judge's own;
- it stands between AGENT_TEXT_OPEN and AGENT_TEXT_CLOSE lines, in ARE's few-shot examples too (so
  they still show the input as the model gets it); a fence tag inside the text is defused.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

# Characters of agent text one soft check may send to the judge: ~5k tokens, many times the
# longest answer or message a Gaia2 task asks for, so only a runaway or hostile agent reaches it.
# A judge model must take this plus ARE's prompt (about 10k characters with its examples).
AGENT_TEXT_CAP = 20_000
AGENT_ARG = "agent_action_call"  # the prompt argument ARE's soft checkers fill with the agent's text
AGENT_TEXT_OPEN = "<agent_text>"
AGENT_TEXT_CLOSE = "</agent_text>"

_BRACKET_RUN = re.compile(r"([\[\]])(?=[\[\]])")  # a bracket followed by another: `[[`, `]]`, `][`
_FENCE_TAG = re.compile(r"<(\s*/?\s*agent_text)", re.IGNORECASE)
_GUARDED = "_gaia2_guarded"


def over_cap(text: str) -> bool:
    return len(text) > AGENT_TEXT_CAP


def neutralise(text: str) -> str:
    """No `[[`/`]]` (ARE's markers) and no fence tag survive; every other character is kept."""
    return _FENCE_TAG.sub(lambda m: "\u2039" + m.group(1), _BRACKET_RUN.sub(r"\1 ", text))


def fence(text: str) -> str:
    return f"{AGENT_TEXT_OPEN}\n{neutralise(text)}\n{AGENT_TEXT_CLOSE}"


def oversized_agent_text(owner: Any, kwargs: dict[str, Any]) -> int | None:
    """The size of the agent's text a soft check of `owner` (ARE's SoftToolJudge) was handed, when
    over the cap: what the trace reports as the reason the check failed. Never raises."""
    try:
        text = owner.describe_action_args(kwargs["agent_args"])
    except Exception:  # noqa: BLE001 - observing only
        return None
    return len(text) if isinstance(text, str) and over_cap(text) else None


_fenced_templates: dict[int, tuple[Any, Any]] = {}


def _with_fenced_examples(templates: Any) -> Any:
    """ARE's templates with the agent text of its few-shot examples fenced as a real input is
    (one copy per template set: ARE builds ~900 checkers per judge from a dozen sets)."""
    cached = _fenced_templates.get(id(templates))
    if cached is not None and cached[0] is templates:
        return cached[1]
    examples = getattr(templates, "examples", None)
    fenced = templates
    if examples and dataclasses.is_dataclass(templates) and not isinstance(templates, type):
        fenced = dataclasses.replace(
            templates,
            examples=[
                {**example, "input": {**example["input"], AGENT_ARG: fence(example["input"][AGENT_ARG])}}
                if isinstance(example.get("input"), dict) and isinstance(example["input"].get(AGENT_ARG), str)
                else example
                for example in examples
            ],
        )
    _fenced_templates[id(templates)] = (templates, fenced)
    return fenced


def guarded(checker_class: type) -> type:
    """A subclass of ARE's LLMChecker that applies the rules above and otherwise is ARE's own."""

    class GuardedLLMChecker(checker_class):
        def __init__(self, engine: Any, prompt_templates: Any, *args: Any, **kwargs: Any) -> None:
            super().__init__(engine, _with_fenced_examples(prompt_templates), *args, **kwargs)

        def __call__(self, user_prompt_args: dict[str, str]) -> bool | None:
            text = user_prompt_args.get(AGENT_ARG)
            if not isinstance(text, str):
                return super().__call__(user_prompt_args)
            if over_cap(text):
                return False
            return super().__call__({**user_prompt_args, AGENT_ARG: fence(text)})

    setattr(GuardedLLMChecker, _GUARDED, True)
    return GuardedLLMChecker


def install() -> None:
    """Make ARE's `build_llm_checkers` (which every soft judge calls) build guarded checkers.

    Raises ImportError when ARE's layout changed: a judge without the guard must not run."""
    from are.simulation.validation.utils import llm_utils

    if not getattr(llm_utils.LLMChecker, _GUARDED, False):
        llm_utils.LLMChecker = guarded(llm_utils.LLMChecker)
