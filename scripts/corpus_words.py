"""Word lists the universe generator draws from (plain data, no ARE import).

The names of the people the scenarios are about (corpus_plants.py) are kept out of these pools, so a
random record can never make a planted fact ambiguous.
"""

from __future__ import annotations

# Word pools packed by hand: the formatter's one item per line would make them 450 lines.
# fmt: off
FIRST_NAMES_F = [
    "Alice", "Amelie", "Anna", "Beatrice", "Camille", "Chloe", "Claire", "Elena", "Elise", "Emma", "Eva",
    "Fatima", "Gabrielle", "Helene", "Irene", "Jade", "Julia", "Justine", "Laura", "Lea", "Lina", "Lucie",
    "Manon", "Margaux", "Marie", "Marta", "Mathilde", "Maya", "Mila", "Noemie", "Olivia", "Pauline", "Priya",
    "Rose", "Sarah", "Selma", "Sofia", "Valentina", "Yasmine", "Zoe",
]
FIRST_NAMES_M = [
    "Adam", "Adrien", "Ahmed", "Antoine", "Arthur", "Axel", "Baptiste", "Benoit", "Bruno", "Cedric",
    "Damien", "David", "Diego", "Emile", "Enzo", "Felix", "Florian", "Gabriel", "Guillaume", "Hamza", "Ivan",
    "Jules", "Julien", "Karim", "Kevin", "Leo", "Louis", "Lucas", "Mathis", "Maxime", "Mehdi", "Nathan",
    "Nicolas", "Oscar", "Paul", "Pierre", "Raphael", "Samuel", "Theo", "Victor",
]
LAST_NAMES = [
    "Andre", "Arnaud", "Aubert", "Barbier", "Benard", "Bertin", "Blanc", "Bonnet", "Bouvier", "Boyer",
    "Brun", "Carpentier", "Caron", "Chevalier", "Clement", "Colin", "Cousin", "Da Silva", "Denis",
    "Deschamps", "Duval", "Faure", "Fernandez", "Fleury", "Fontaine", "Fournier", "Francois", "Gaillard",
    "Garnier", "Gauthier", "Gerard", "Girard", "Guerin", "Henry", "Hubert", "Jacob", "Joly", "Lacroix",
    "Lefebvre", "Legrand", "Lemaire", "Leroy", "Lopez", "Lucas", "Marchal", "Masson", "Mathieu", "Mercier",
    "Meunier", "Meyer", "Michel", "Morel", "Muller", "Nguyen", "Noel", "Perrin", "Picard", "Renaud",
    "Renard", "Riviere", "Robin", "Roche", "Rolland", "Roussel", "Roux", "Sanchez", "Schmitt", "Simon",
    "Vidal", "Weber",
]
# fmt: on
CITIES = [
    ("Paris", "France"),
    ("Lyon", "France"),
    ("Marseille", "France"),
    ("Bordeaux", "France"),
    ("Lille", "France"),
    ("Nantes", "France"),
    ("Toulouse", "France"),
    ("Geneva", "Switzerland"),
    ("Brussels", "Belgium"),
    ("London", "United Kingdom"),
    ("Berlin", "Germany"),
    ("Madrid", "Spain"),
    ("Lisbon", "Portugal"),
    ("Milan", "Italy"),
]
# fmt: off
STREETS = [
    "Rue de la Paix", "Avenue Jean Jaures", "Rue Victor Hugo", "Boulevard Voltaire", "Rue Oberkampf",
    "Quai des Celestins", "Rue de la Republique", "Cours Lafayette", "Rue Saint-Antoine", "Avenue Foch",
    "Rue des Martyrs", "Place Bellecour", "Rue Garibaldi", "Boulevard Haussmann", "Rue du Bac",
    "Rue Mercière", "Avenue de Saxe", "Rue Paul Bert", "Rue Sainte-Catherine", "Quai Saint-Vincent",
]
JOBS = [
    "Accountant", "Architect", "Baker", "Data analyst", "Dentist", "Designer", "Doctor", "Electrician",
    "Engineer", "Journalist", "Lawyer", "Librarian", "Marketing manager", "Nurse", "Pharmacist",
    "Photographer", "Physiotherapist", "Product manager", "Researcher", "Sales manager",
    "Software developer", "Teacher", "Translator", "Veterinarian",
]
DESCRIPTIONS = [
    "Met at the climbing gym.", "Former colleague from the Lyon office.", "Neighbour on the third floor.",
    "Friend from university.", "Plays in the Sunday football team.", "Book club member.",
    "Parent from the school committee.", "Supplier contact for office furniture.",
    "Cousin on my mother's side.", "Runs the bakery downstairs.", "Met during the Lisbon conference.",
    "Yoga class friend.",
]
COMPANIES = [
    "Northwind", "Helios Labs", "Atelier Lumen", "Bluefin Logistics", "Cobalt Studio", "Verdant Foods",
    "Orion Consulting", "Quartz Media", "Solace Health", "Tidal Energy",
]
# fmt: on
EMAIL_TOPICS = [
    (
        "Quarterly report draft",
        "I attached my comments on the quarterly report draft. The revenue section still "
        "needs the updated figures from finance, and the outlook paragraph could be shorter.",
    ),
    (
        "Lunch next week?",
        "Are you free for lunch one day next week? I found a new place near the canal that serves "
        "great ramen. Tuesday or Thursday would work best for me.",
    ),
    (
        "Invoice {n}",
        "Please find the details of invoice {n} below. Payment is due within 30 days. Let me know if "
        "anything looks wrong and I will send a corrected version.",
    ),
    (
        "Project kickoff",
        "The kickoff meeting for the new project is confirmed. We will go through the scope, the "
        "timeline and the roles. Please read the brief beforehand.",
    ),
    (
        "Your order has shipped",
        "Good news: your order is on its way. You can follow the delivery with the tracking "
        "number in your account. Expected delivery within three working days.",
    ),
    (
        "Weekend plans",
        "We are thinking of going hiking on Saturday if the weather holds. Would you like to join? "
        "We would leave early in the morning and be back for dinner.",
    ),
    (
        "Newsletter: this week in the city",
        "Five exhibitions you should not miss, a new cycling lane on the quays, "
        "and the opening hours of the Christmas market.",
    ),
    (
        "Rent receipt",
        "Here is the rent receipt for last month. The building maintenance visit is planned for the "
        "beginning of next month; the caretaker will confirm the date.",
    ),
    (
        "Conference travel",
        "Your travel for the conference is booked. The hotel is a ten minute walk from the venue. "
        "Remember to keep your receipts for the expense report.",
    ),
    (
        "Feedback on the mockups",
        "Thanks for sharing the mockups. The navigation is much clearer now. I would still "
        "increase the contrast of the secondary buttons and shorten the onboarding.",
    ),
    (
        "Dentist reminder",
        "This is a reminder of your upcoming check-up. Please arrive ten minutes early and bring "
        "your insurance card.",
    ),
    (
        "Team offsite ideas",
        "Please send me your ideas for the team offsite before Friday. Budget is limited, so "
        "local options are preferred.",
    ),
]
# fmt: off
MESSAGE_LINES = [
    "Running a bit late, be there in 10.", "Did you see the match yesterday?",
    "Can you send me the address?", "Thanks again for dinner!", "Happy birthday!!",
    "Are we still on for tomorrow?", "Call me when you can.", "I left the keys with the neighbour.",
    "Just landed.", "Sounds good to me.", "Let's do Thursday instead.", "I'll bring dessert.",
    "Where did you park?", "The meeting moved to 3pm.", "Good luck today!",
    "Can you pick up some bread on the way?", "Photos from the trip are online.", "Ok, see you there.",
    "Traffic is terrible on the ring road.", "Don't forget the umbrella, it's going to rain.",
]
CALENDAR_TITLES = [
    "Team standup", "1:1 with manager", "Yoga class", "Dentist", "Project review", "Lunch with a friend",
    "Gym", "Budget meeting", "Client call", "Doctor appointment", "Book club", "Parent-teacher meeting",
    "Design sync", "Coffee chat", "Piano lesson", "Swimming", "Car service", "Sprint planning",
]
CALENDAR_TAGS = ["work", "personal", "health", "family", "sport", "errands"]
LOCATIONS = ["Room 4B", "Main office", "Cafe Lumiere", "City gym", "Online", "Home", "Library", "Client site"]
# fmt: on
PRODUCT_KINDS = [
    ("Running shoes", ["size"], [["39", "40", "41", "42", "43", "44"]], (49, 160)),
    ("Rain jacket", ["size", "colour"], [["S", "M", "L", "XL"], ["navy", "black", "olive"]], (39, 220)),
    ("Coffee grinder", ["colour"], [["steel", "black"]], (25, 190)),
    ("Wireless earbuds", ["colour"], [["white", "black", "blue"]], (29, 250)),
    ("Backpack", ["capacity"], [["20L", "28L", "35L"]], (35, 180)),
    ("Desk lamp", ["colour"], [["white", "black", "brass"]], (19, 130)),
    ("Water bottle", ["capacity"], [["0.5L", "0.75L", "1L"]], (9, 45)),
    ("Yoga mat", ["thickness"], [["4mm", "6mm", "8mm"]], (15, 90)),
    ("USB-C charger", ["power"], [["30W", "65W", "100W"]], (15, 80)),
    ("Notebook", ["format"], [["A5", "A4"]], (4, 30)),
    ("Tea set", ["colour"], [["white", "celadon"]], (22, 140)),
    ("Bike helmet", ["size"], [["S", "M", "L"]], (30, 150)),
]
# fmt: off
BRANDS = [
    "Alto", "Borea", "Cirrus", "Dune", "Ember", "Fjord", "Gale", "Halo", "Ion", "Juniper", "Kestrel",
    "Lumen", "Mistral", "Nimbus", "Opal", "Pico", "Quill", "Riva", "Sable", "Tundra",
]
APARTMENT_WORDS = [
    "Bright", "Cosy", "Spacious", "Modern", "Quiet", "Renovated", "Charming", "Sunny", "Elegant",
]
PROPERTY_TYPES = ["Apartment", "Studio", "Loft", "Duplex"]
AMENITIES = [
    "Balcony", "Elevator", "Parking", "Dishwasher", "Washing machine", "Gym", "Garden", "Air conditioning",
]
PLACES = [
    "Gare de Lyon", "Bastille", "Montmartre", "La Defense", "Orly Airport", "Charles de Gaulle Airport",
    "Gare du Nord", "Opera", "Republique", "Bercy", "Porte Maillot", "Chatelet", "Belleville", "Nation",
]
# fmt: on
FILE_TOPICS = {
    "Documents/Finance": ["budget", "invoice", "payslip", "tax_notice", "bank_statement"],
    "Documents/Work": ["meeting_notes", "roadmap", "okrs", "retro", "hiring_plan"],
    "Documents/Travel": ["itinerary", "packing_list", "visa_checklist", "hotel_booking"],
    "Documents/news": ["metro_herald", "city_gazette", "tech_weekly", "daily_courier"],
    "Documents/Recipes": ["tarte_tatin", "ratatouille", "shakshuka", "banana_bread", "risotto"],
    "Downloads": ["manual", "ticket", "receipt", "form", "brochure"],
    "Pictures/Holidays": ["beach", "mountain", "old_town", "sunset"],
}
