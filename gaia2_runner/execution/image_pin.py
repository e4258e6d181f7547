"""The image a run executes, pinned by content id when the run starts.

An output directory is one setup. Its fingerprint.json (and each run_config.json) records the
image id its tag named when the run started; a resumed run or a --retry runs that exact image
(by id) as long as it exists, whatever the tag names now: a rebuilt `:latest` changes nothing a
run already started, and does not block it. When the pinned image is gone (removed, pruned), the
run cannot go on as the same setup: one error line says so and how to go on (--overwrite starts
over with what the tag names now). `--overwrite` and new output directories pin the tag's id.
Image ids are an engine's own: a pin recorded on another engine is not this engine's to look up
(the fingerprint refuses the switch of engine itself, output/fingerprint.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from gaia2_runner.output.fingerprint import recorded_engine

ID_SHOWN = 12  # characters of an image id in messages, as podman shows them


class ImageLookup(Protocol):
    engine: str  # PODMAN | DOCKER (config/engines.py)

    def image_id(self, ref: str) -> str | None: ...


def short_id(image_id: str | None) -> str:
    return (image_id or "none").removeprefix("sha256:")[:ID_SHOWN]


@dataclass
class ImagePin:
    """What the tag named when the run started (`recorded`), what it names now (`current`), and
    whether the recorded image still exists on the planning host."""

    tag: str
    recorded: str | None
    current: str | None
    recorded_present: bool
    _refs: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def moved(self) -> bool:
        """The tag names another image than the one the run started with."""
        return bool(self.recorded) and self.recorded != self.current

    @property
    def gone(self) -> bool:
        """The run's own image no longer exists: it cannot go on as the same setup."""
        return self.moved and not self.recorded_present

    @property
    def image_id(self) -> str | None:
        """The id this invocation runs (and records): the pinned one while it exists."""
        return self.recorded if self.moved and self.recorded_present else self.current

    def ref_on(self, sandbox: ImageLookup) -> str:
        """What containers on `sandbox` are created from: the pinned id where that image exists
        (image ids are per engine: another host's build of the tag has its own), else the tag."""
        key = id(sandbox)
        if key not in self._refs:
            pinned = self.image_id
            self._refs[key] = pinned if pinned and sandbox.image_id(pinned) == pinned else self.tag
        return self._refs[key]

    def note(self) -> str | None:
        """One line when a resumed run keeps its image although the tag moved on."""
        if not self.moved or self.gone:
            return None
        return (
            f"{self.tag} now names image {short_id(self.current)}; this output directory keeps running "
            f"the image it started with, {short_id(self.recorded)} (--overwrite starts over with the new one)"
        )

    def gone_message(self, output_dir: Any) -> str:
        return (
            f"{output_dir} was started with image {self.tag} = {short_id(self.recorded)}, which no longer "
            f"exists ({self.tag} now names {short_id(self.current)}): pass --overwrite to start over with "
            f"it, use a new --output-dir, or bring the old image back (podman load, or pull it by digest)"
        )


def pin_image(tag: str, recorded: Iterable[dict[str, Any]], sandbox: ImageLookup, *, fresh: bool) -> ImagePin:
    """The pin for `tag` given the fingerprints recorded in the output directory; `fresh` (an
    --overwrite, which discards them) pins what the tag names now."""
    current = sandbox.image_id(tag)
    ids = (
        []
        if fresh
        else [
            (doc.get("settings") or {}).get("image_id")
            for doc in recorded
            if recorded_engine(doc) == sandbox.engine
        ]
    )
    pinned = next((i for i in ids if isinstance(i, str) and i), None)
    present = pinned is not None and (pinned == current or sandbox.image_id(pinned) == pinned)
    return ImagePin(tag=tag, recorded=pinned, current=current, recorded_present=present)
