"""The base class of the corpus scenarios: a full universe of Gaia2 apps under their real instance
names, Gaia2-like metadata, and the helpers build_events_flow uses (capture mode, fixed ids)."""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar

from are.simulation.apps import AgentUserInterface, SystemApp
from are.simulation.scenarios.scenario import Scenario
from are.simulation.types import CapabilityTag, Event, EventType, Hint, HintType

import corpus_plants as P
import corpus_universe as U
import corpus_universe_more as M

ORACLE_DELAY = 1  # seconds between an oracle action and what it follows
_FILE_BYTES: dict[int, dict[str, bytes]] = {}  # universe -> bytes of its Files nodes


def file_bytes(universe: int) -> dict[str, bytes]:
    """Relative path -> bytes of every Files node of `universe` (filled when its apps are built)."""
    return _FILE_BYTES[universe]


def build_apps(universe: int) -> list[Any]:
    """Fresh app instances of one universe, in the order real Gaia2 files list them."""
    u = U.make_people(universe)
    files, contents = M.make_files(u)
    _FILE_BYTES[universe] = contents
    return [
        AgentUserInterface(),
        U.make_calendar(u),
        U.make_contacts(u, "Contacts"),
        U.make_contacts(u, "InternalContacts"),
        U.make_emails(u),
        U.make_messaging(u, "Messages"),
        U.make_messaging(u, "Chats"),
        M.make_flats(u),
        M.make_cabs(u),
        M.make_city(u),
        M.make_shopping(u),
        files,
        SystemApp(),
    ]


def scenario_tag(universe: int, name: str) -> str:
    """Six lowercase base-36 characters, like the tags of real Gaia2 ids (`..._22_bv95nt`)."""
    value = int.from_bytes(hashlib.sha256(f"{universe}/{name}".encode()).digest()[:8], "big")
    chars = "0123456789abcdefghijklmnopqrstuvwxyz"
    return "".join(chars[(value // 36**i) % 36] for i in range(6))


class CorpusScenario(Scenario):
    """Subclasses set `universe`, `capability`, `hint`, optionally `duration`, and build_events_flow."""

    universe: ClassVar[int] = 7
    capability: ClassVar[CapabilityTag] = CapabilityTag.Execution
    hint: ClassVar[str] = ""
    reads_file_bytes: ClassVar[bool] = False  # an agent needs the Files bytes to solve it

    start_time: float | None = P.START_TIME
    duration: float | None = 1800
    time_increment_in_seconds: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        self.scenario_id = (
            f"scenario_universe_{self.universe}_{scenario_tag(self.universe, type(self).__name__)}"
        )
        self.tags = (CapabilityTag.Universe, self.capability)
        super().__post_init__()

    def init_and_populate_apps(self, *args: Any, **kwargs: Any) -> None:
        self.apps = build_apps(self.universe)

    def finish(self, events: list[Any]) -> None:
        """Store the events and the hint (on the first user message, as in real files)."""
        self.events = events
        self.hints = [
            Hint(hint_type=HintType.TASK_HINT, content=self.hint, associated_event_id=events[0].event_id)
        ]

    # ---- helpers for build_events_flow (capture mode) ----------------------------------------
    def app(self, name: str) -> Any:
        return self.get_app(name)

    def user_says(self, event_id: str, content: str, after: Any = None, delay: float = 0) -> Any:
        aui = self.get_typed_app(AgentUserInterface)
        return (
            aui.send_message_to_agent(content=content)
            .with_type(EventType.USER)
            .with_id(event_id)
            .depends_on(after, delay_seconds=delay)
        )

    def agent_tells_user(self, event_id: str, content: str, after: Any, delay: float = ORACLE_DELAY) -> Any:
        aui = self.get_typed_app(AgentUserInterface)
        return (
            aui.send_message_to_user(content=content)
            .oracle()
            .with_id(event_id)
            .depends_on(after, delay_seconds=delay)
        )

    @staticmethod
    def oracle(event: Event, event_id: str, after: Any, delay: float = ORACLE_DELAY) -> Any:
        return event.oracle().with_id(event_id).depends_on(after, delay_seconds=delay)

    @staticmethod
    def env(event: Event, event_id: str, after: Any, delay: float) -> Any:
        """An environment event with exactly one predecessor (ARE's Gaia2 rule)."""
        return event.with_id(event_id).depends_on(after, delay_seconds=delay)
