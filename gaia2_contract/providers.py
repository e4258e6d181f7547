"""The provider names a run may name (--provider, [agent] provider, [judge] provider, a harness
profile's `providers`), as the runner checks them and the container's runtimes dispatch on them."""

from __future__ import annotations

ORACLE = "oracle"  # no model: the built-in oracle replays the ground truth
OPENAI = "openai"
OPENAI_COMPAT = "openai-compat"  # any OpenAI Chat Completions server (llama.cpp, vLLM, ...)
ANTHROPIC = "anthropic"
GEMINI = "gemini"
OPENROUTER = "openrouter"

KNOWN = (ORACLE, OPENAI, OPENAI_COMPAT, ANTHROPIC, GEMINI, OPENROUTER)
MODELS = KNOWN[1:]  # the providers of a model: the judge's, the built-in LLM agent's, a harness's
CHAT_COMPLETIONS = (
    OPENAI_COMPAT,
    OPENAI,
    OPENROUTER,
)  # every one speaks OpenAI Chat Completions; the first is the default
DEFAULT = OPENAI  # of the built-in LLM agent and the judge when none is named
