"""The agents `--agent NAME` selects: the built-in oracle and LLM loop, and the CLI harnesses.

A CLI harness is described by `containers/harnesses/<name>/profile.toml`, the one file both sides
read: the host takes the image facts from it (package, pinned version, base, wire protocol,
providers), the container's turn driver how to run a turn (docs/reference/agents.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gaia2_contract import harness_profile, providers
from gaia2_runner.config.defaults import AGENT_IMAGE, ORACLE_IMAGE, image_name
from gaia2_runner.config.model import RunConfig
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.resources import checkout_candidates

HARNESS_RUNTIME = "harness"  # GAIA2_RUNTIME of every harness image (its turn driver)


@dataclass(frozen=True)
class Harness:
    name: str
    title: str
    image: str
    providers: tuple[str, ...]  # the first is the default
    runtime: str
    package: str | None = None  # "npm:<pkg>" / "pypi:<pkg>"; None for the built-in agents
    version: str | None = None
    base: str | None = None  # "node" or "python"
    wire: str | None = None

    @property
    def builtin(self) -> bool:
        return self.package is None

    @property
    def containerfile(self) -> str:
        """Relative to containers/ (the build context)."""
        return f"harnesses/{self.name}/Containerfile"


BUILTIN = {
    "oracle": Harness(
        "oracle", "Oracle (replays the ground truth)", ORACLE_IMAGE, (providers.ORACLE,), "oracle"
    ),
    "llm": Harness(
        "llm",
        "gaia2-runner's tool-calling loop",
        AGENT_IMAGE,
        providers.MODELS,
        "agent",
        wire="provider's own",
    ),
    # ARE's own default agent, as `are-benchmark gaia2-run` runs it (docs/reference/are-default-agent.md);
    # the agent image holds ARE, so only the runtime differs.
    "are-default": Harness(
        "are-default",
        "ARE's default agent (gaia2-run's scaffold)",
        AGENT_IMAGE,
        providers.CHAT_COMPLETIONS,
        "are-default",
        wire="openai-chat",
    ),
}


def harnesses_dir() -> Path | None:
    for containers in checkout_candidates("containers", "GAIA2_CONTAINERS_DIR"):
        if (containers / "harnesses").is_dir():
            return containers / "harnesses"
    return None


def _load(path: Path) -> Harness:
    try:
        fields = harness_profile.image_fields(harness_profile.read(path), path)
    except harness_profile.ProfileError as exc:
        raise Gaia2Error(str(exc)) from None
    return Harness(
        fields.name,
        fields.title,
        image_name(fields.name),
        fields.providers,
        HARNESS_RUNTIME,
        fields.package,
        fields.version,
        fields.base,
        fields.wire,
    )


def all_harnesses() -> dict[str, Harness]:
    """Built-in agents first, then every profile under containers/harnesses/, by name."""
    found = dict(BUILTIN)
    root = harnesses_dir()
    if root is not None:
        for profile in sorted(root.glob(f"*/{harness_profile.PROFILE_FILE}")):
            found[profile.parent.name] = _load(profile)
    return found


def get_harness(name: str, where: str = "--agent") -> Harness:
    known = all_harnesses()
    if name not in known:
        raise Gaia2Error(f"{where}: unknown agent {name!r}: use one of {', '.join(known)}")
    return known[name]


def apply_harness(config: RunConfig) -> RunConfig:
    """Fill image, provider and runtime from `--agent NAME`; what the user set explicitly stays
    (their own image of a harness, an explicit runtime), a provider it cannot speak is an error."""
    agent = config.agent
    if not agent.harness:
        return config
    harness = get_harness(agent.harness, config.where("harness"))
    given = config.origins
    provider = agent.provider if "provider" in given else harness.providers[0]
    if provider not in harness.providers:
        speaks = f" (it speaks {harness.wire})" if harness.wire else ""
        raise Gaia2Error(
            f"{config.where('provider')}: agent {harness.name!r} cannot use provider {provider!r}"
            f"{speaks}: use {', '.join(harness.providers)}"
        )
    return replace(
        config,
        agent=replace(
            agent,
            image=agent.image if "image" in given else harness.image,
            provider=provider,
            runtime=agent.runtime if "runtime" in given else harness.runtime,
        ),
    )
