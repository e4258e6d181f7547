"""Where a provider's requests go when no --base-url is given.

Two roots per provider, because clients append different things: the built-in LLM runtime and the
judge's preflight append the endpoint (`/chat/completions`, `/messages`, `/models/...`) to an API
root; a harness's own SDK appends its version prefix too (`/v1/messages`, `/v1beta/models/...`),
so the model relay stands for the SDK root.
"""

from __future__ import annotations

from gaia2_contract import providers

API_BASE_URLS = {
    providers.OPENAI: "https://api.openai.com/v1",
    providers.ANTHROPIC: "https://api.anthropic.com/v1",
    providers.GEMINI: "https://generativelanguage.googleapis.com/v1beta",
    providers.OPENROUTER: "https://openrouter.ai/api/v1",
}
SDK_BASE_URLS = {
    providers.ANTHROPIC: "https://api.anthropic.com",
    providers.OPENAI: API_BASE_URLS[providers.OPENAI],
    providers.GEMINI: "https://generativelanguage.googleapis.com",
    providers.OPENROUTER: API_BASE_URLS[providers.OPENROUTER],
}
