"""The facts the corpus scenarios are about, planted into every universe with fixed ids.

Plain data (no ARE import): corpus_universe.py puts these records among the random ones,
corpus_scenarios_*.py build tasks and oracle actions from them. Their first and last names are not
in corpus_words.py's pools, so no random record can duplicate a planted person.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

# 2024-10-15 07:00:00 UTC, the start time seen in real Gaia2 files.
START_TIME = 1728975600.0
DAY = 86400.0


def ts(text: str) -> float:
    """'YYYY-MM-DD HH:MM:SS' (UTC) -> epoch seconds."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()


@dataclass(frozen=True)
class Person:
    key: str
    first: str
    last: str
    gender: str
    age: int
    city: str
    country: str
    job: str
    phone: str
    email: str

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def contact_id(self) -> str:
        return f"contact-{self.key}"

    @property
    def user_id(self) -> str:
        """The person's id in the Messages and Chats apps."""
        return f"user-{self.key}"


USER = Person(
    "ines-moreau",
    "Ines",
    "Moreau",
    "FEMALE",
    36,
    "Paris",
    "France",
    "Product manager",
    "+33 6 40 12 77 31",
    "ines.moreau@example.com",
)
HOME = "12 Rue des Petites Ecuries, 75010 Paris"

CLARA = Person(
    "clara-dubois",
    "Clara",
    "Dubois",
    "FEMALE",
    41,
    "Paris",
    "France",
    "Event manager",
    "+33 6 52 18 40 09",
    "clara.dubois@example.com",
)
NORA = Person(
    "nora-petit",
    "Nora",
    "Petit",
    "FEMALE",
    33,
    "Paris",
    "France",
    "Accountant",
    "+33 6 71 90 23 45",
    "nora.petit@example.com",
)
HUGO = Person(
    "hugo-lambert",
    "Hugo",
    "Lambert",
    "MALE",
    38,
    "Paris",
    "France",
    "Architect",
    "+33 6 18 64 02 77",
    "hugo.lambert@example.com",
)
MARC = Person(
    "marc-olivier",
    "Marc",
    "Olivier",
    "MALE",
    52,
    "Lyon",
    "France",
    "Sales manager",
    "+33 6 33 47 81 60",
    "marc.olivier@example.com",
)
YANN = Person(
    "yann-kerbrat",
    "Yann",
    "Kerbrat",
    "MALE",
    29,
    "Nantes",
    "France",
    "Photographer",
    "+33 6 90 55 12 08",
    "yann.kerbrat@example.com",
)
PLANTED_PEOPLE = [CLARA, NORA, HUGO, MARC, YANN]

# Execution: Marc proposes a meeting by email (the agent reads date, time and place from it).
MARC_EMAIL_ID = "email-marc-supplier-visit"
MARC_EMAIL_SUBJECT = "Supplier visit in Lyon"
MARC_EMAIL_BODY = (
    "Hi Ines,\n\nAs discussed, let's meet at the Verdant Foods warehouse, 18 Quai Rambaud, Lyon, on "
    "Thursday 24 October from 14:00 to 15:30 (Paris time is fine, I will be on site all day).\n"
    "Could you put it in your calendar and confirm by replying to this email?\n\nBest,\nMarc"
)
MARC_MEETING = (
    "2024-10-24 14:00:00",
    "2024-10-24 15:30:00",
    "Verdant Foods warehouse, 18 Quai Rambaud, Lyon",
)

# Execution: a product with several variants, one of them the cheapest available 42.
SHOES_PRODUCT_ID = "prod-trail-shoes-kestrel"
SHOES_NAME = "Kestrel Trail Runner GTX"
SHOES_ITEMS = [  # item_id, price, available, options
    ("item-kestrel-41-grey", 129.0, True, {"size": "41", "colour": "grey"}),
    ("item-kestrel-42-grey", 129.0, False, {"size": "42", "colour": "grey"}),
    ("item-kestrel-42-orange", 118.5, True, {"size": "42", "colour": "orange"}),
    ("item-kestrel-42-black", 134.0, True, {"size": "42", "colour": "black"}),
    ("item-kestrel-43-black", 134.0, True, {"size": "43", "colour": "black"}),
]
SHOES_ITEM = "item-kestrel-42-orange"
SHOES_CODE = "TRAIL15"

# Search: the cheapest 2-bedroom flat in Lyon (random 2-bedroom flats all cost more).
FLAT_ID = "apt-lyon-croix-rousse-2br"
FLAT_NAME = "Sunny 2BR near Croix-Rousse market"
FLAT_PRICE = 655.0
FLAT_ZIP = "69004"

# Search (reads file bytes): travel expenses in a CSV file in Files.
EXPENSES_PATH = "Documents/Finance/travel_expenses_2024.csv"
EXPENSES_ROWS = [  # date, description, category, amount (EUR)
    ("2024-08-28", "Train Paris-Lyon", "travel", 89.0),
    ("2024-09-03", "Hotel Lyon 2 nights", "travel", 212.4),
    ("2024-09-03", "Team dinner", "meals", 64.5),
    ("2024-09-11", "Taxi to client", "travel", 38.2),
    ("2024-09-17", "Flight Paris-Lisbon", "travel", 176.9),
    ("2024-09-18", "Conference lunch", "meals", 22.0),
    ("2024-09-26", "Train Lyon-Paris", "travel", 91.0),
    ("2024-10-02", "Parking", "travel", 18.0),
]
SEPTEMBER_TRAVEL_TOTAL = "518.50"

# Ambiguity: a calendar clash on the requested slot.
CLASH_EVENT_ID = "cal-quarterly-review"
CLASH = ("Quarterly review with Sofia", "2024-10-22 09:00:00", "2024-10-22 10:30:00", "Room 4B")
RESERVED_DAYS = ("2024-10-22", "2024-10-24")  # no random calendar event on these days

# Group chat and existing conversations with the planted people.
HUGO_CONV_ID = "conv-messages-hugo-lambert"
NORA_CHAT_ID = "conv-chats-nora-petit"
