"""Provider registry: a settings object in, the provider that speaks its wire format out."""

from __future__ import annotations

from gaia2_contract import providers

from ..settings import Settings
from ..transport import Poster
from .anthropic import AnthropicProvider
from .base import Provider
from .gemini import GeminiProvider
from .openai_chat import ChatCompletionsProvider
from .openai_responses import ResponsesProvider


def make_provider(settings: Settings, transport: Poster) -> Provider:
    name = settings.provider
    if name == providers.OPENAI and settings.options.api == "responses":
        return ResponsesProvider(settings, transport)
    if name in providers.CHAT_COMPLETIONS:
        return ChatCompletionsProvider(settings, transport, name=name)
    if name == providers.ANTHROPIC:
        return AnthropicProvider(settings, transport)
    if name == providers.GEMINI:
        return GeminiProvider(settings, transport)
    raise ValueError(f"unknown provider {name!r}")


__all__ = ["Provider", "make_provider"]
