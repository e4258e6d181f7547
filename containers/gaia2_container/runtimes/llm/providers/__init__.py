"""Provider registry: a settings object in, the provider that speaks its wire format out."""

from __future__ import annotations

from ..settings import Settings
from ..transport import Transport
from .anthropic import AnthropicProvider
from .base import Provider
from .gemini import GeminiProvider
from .openai_chat import ChatCompletionsProvider
from .openai_responses import ResponsesProvider


def make_provider(settings: Settings, transport: Transport) -> Provider:
    name = settings.provider
    if name == "openai" and settings.options.api == "responses":
        return ResponsesProvider(settings, transport)
    if name in ("openai", "openai-compat", "openrouter"):
        return ChatCompletionsProvider(settings, transport, name=name)
    if name == "anthropic":
        return AnthropicProvider(settings, transport)
    if name == "gemini":
        return GeminiProvider(settings, transport)
    raise ValueError(f"unknown provider {name!r}")


__all__ = ["Provider", "make_provider"]
