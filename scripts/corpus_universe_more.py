"""The rest of a universe: Shopping, RentAFlat, Cabs, City and the Files tree with its bytes.

Same rules as corpus_universe.py (seeded `random.Random` per part, fixed ids, planted records).
`make_files` also returns the bytes of every file node: the generator writes them under
`<out>/gaia2_filesystem/demo_filesystem/`, the directory the nodes' `real_path` points into.
"""

from __future__ import annotations

import json
import struct
import zlib
from datetime import UTC, datetime

from are.simulation.apps import ApartmentListingApp, CabApp, CityApp, SandboxLocalFileSystem, ShoppingApp
from are.simulation.apps.apartment_listing import Apartment
from are.simulation.apps.cab import Ride
from are.simulation.apps.city import CrimeDataPoint
from are.simulation.apps.shopping import CartItem, Item, Order, Product
from are.simulation.types import EventRegisterer

import corpus_plants as P
import corpus_words as W
from corpus_universe import Universe, hexid, rng_for

N_PRODUCTS = 430
N_ORDERS = 80
N_APARTMENTS = 620
N_RIDES = 360
N_ZIPS = 320
FILES_PER_TOPIC = 14


def make_shopping(u: Universe) -> ShoppingApp:
    rng = rng_for(u.n, "shopping")
    app = ShoppingApp(name="Shopping")
    products = []
    for i in range(N_PRODUCTS):
        kind, keys, values, (low, high) = W.PRODUCT_KINDS[i % len(W.PRODUCT_KINDS)]
        brand = W.BRANDS[(i // len(W.PRODUCT_KINDS)) % len(W.BRANDS)]
        product = Product(
            name=f"{brand} {kind} {i // (len(W.PRODUCT_KINDS) * len(W.BRANDS)) + 1}", product_id=hexid(rng)
        )
        base = round(rng.uniform(low, high), 2)
        combos = (
            [[v] for v in values[0]] if len(keys) == 1 else [[a, b] for a in values[0] for b in values[1]]
        )
        for combo in rng.sample(combos, min(len(combos), rng.randint(2, 6))):
            item = Item(
                price=round(base * rng.uniform(0.9, 1.15), 2),
                available=rng.random() < 0.85,
                item_id=hexid(rng),
                options=dict(zip(keys, combo)),
            )
            product.variants[item.item_id] = item
        products.append(product)
    shoes = Product(name=P.SHOES_NAME, product_id=P.SHOES_PRODUCT_ID)
    for item_id, price, available, options in P.SHOES_ITEMS:
        shoes.variants[item_id] = Item(price=price, available=available, item_id=item_id, options=options)
    products.append(shoes)
    app.products = {p.product_id: p for p in products}
    items = [item for p in products for item in p.variants.values()]
    for item in rng.sample(items, 60):
        app.discount_codes[item.item_id] = {
            rng.choice(["SAVE10", "WELCOME5", "AUTUMN20"]): rng.choice([5.0, 10.0, 20.0])
        }
    app.discount_codes[P.SHOES_ITEM] = {P.SHOES_CODE: 15.0}
    for _ in range(N_ORDERS):
        chosen = rng.sample(items, rng.randint(1, 3))
        lines = {
            it.item_id: CartItem(
                item_id=it.item_id, quantity=rng.randint(1, 2), price=it.price, options=dict(it.options)
            )
            for it in chosen
        }
        when = datetime.fromtimestamp(P.START_TIME - rng.randint(P.DAY, 300 * P.DAY), tz=UTC)
        order = Order(
            order_status=rng.choice(["delivered", "delivered", "shipped", "cancelled"]),
            order_date=when,
            order_total=round(sum(c.price * c.quantity for c in lines.values()), 2),
            order_id=hexid(rng),
            order_items=lines,
        )
        app.orders[order.order_id] = order
    return app


def make_flats(u: Universe) -> ApartmentListingApp:
    rng = rng_for(u.n, "flats")
    app = ApartmentListingApp(name="RentAFlat")
    price_ranges = {1: (450, 1400), 2: (700, 2200), 3: (1000, 3000), 4: (1500, 4200)}
    flats = []
    for _ in range(N_APARTMENTS):
        city, _country = rng.choice(W.CITIES[:8])
        bedrooms = rng.choice([1, 1, 2, 2, 3, 4])
        kind = "Studio" if bedrooms == 1 and rng.random() < 0.4 else rng.choice(W.PROPERTY_TYPES[::2])
        flats.append(
            Apartment(
                name=f"{rng.choice(W.APARTMENT_WORDS)} {bedrooms}BR {kind.lower()} in {city}",
                location=f"{rng.randint(1, 120)} {rng.choice(W.STREETS)}, {city}",
                zip_code=str(rng.randint(10000, 99999)),
                price=float(rng.randint(*price_ranges[bedrooms])),
                bedrooms=bedrooms,
                bathrooms=max(1, bedrooms - 1),
                property_type=kind,
                square_footage=bedrooms * rng.randint(300, 450),
                furnished_status=rng.choice(["Furnished", "Unfurnished", "Semi-furnished"]),
                floor_level=rng.choice(["Ground floor", "Upper floors", "Penthouse"]),
                pet_policy=rng.choice(["Pets allowed", "No pets", "Cats allowed"]),
                lease_term=rng.choice(["1 year", "6 months", "Month-to-month"]),
                apartment_id=hexid(rng),
                amenities=sorted(rng.sample(W.AMENITIES, rng.randint(1, 4))),
            )
        )
    flats.append(
        Apartment(
            name=P.FLAT_NAME,
            location="7 Rue d'Austerlitz, Lyon",
            zip_code=P.FLAT_ZIP,
            price=P.FLAT_PRICE,
            bedrooms=2,
            bathrooms=1,
            property_type="Apartment",
            square_footage=690,
            furnished_status="Unfurnished",
            floor_level="Upper floors",
            pet_policy="Cats allowed",
            lease_term="1 year",
            apartment_id=P.FLAT_ID,
            amenities=["Balcony", "Washing machine"],
        )
    )
    app.apartments = {a.apartment_id: a for a in flats}
    saved = rng.sample([a.apartment_id for a in flats[:-1]], 6)
    app.saved_apartments = saved
    for apt_id in saved:
        app.apartments[apt_id].saved = True
    return app


def make_cabs(u: Universe) -> CabApp:
    rng = rng_for(u.n, "cabs")
    app = CabApp(name="Cabs")
    for _ in range(N_RIDES):
        start, end = rng.sample(W.PLACES, 2)
        service = rng.choice(["Default", "Default", "Premium", "Van"])
        distance = round(rng.uniform(2, 24), 2)
        ride = Ride(
            ride_id=hexid(rng),
            status=rng.choice(["COMPLETED", "COMPLETED", "CANCELLED"]),
            service_type=service,
            start_location=f"{start}, Paris",
            end_location=f"{end}, Paris",
            price=round(distance * app.d_service_config[service]["price_per_km"], 2),
            duration=round(distance / 50 * 60 + rng.uniform(0, 10), 2),
            time_stamp=float(P.START_TIME - rng.randint(P.DAY, 365 * P.DAY)),
            distance_km=distance,
            delay=float(rng.randint(2, 12)),
        )
        app.ride_history.append(ride)
        app.quotation_history.append(ride)
    app.ride_history.sort(key=lambda r: (r.time_stamp, r.ride_id))
    app.quotation_history.sort(key=lambda r: (r.time_stamp, r.ride_id))
    return app


def make_city(u: Universe) -> CityApp:
    rng = rng_for(u.n, "city")
    app = CityApp(name="City")
    zips = sorted(rng.sample(range(10000, 99999), N_ZIPS - 1)) + [int(P.FLAT_ZIP)]
    app.crime_data = {
        str(z): CrimeDataPoint(
            violent_crime=round(rng.uniform(0.5, 9.5), 2), property_crime=round(rng.uniform(5, 60), 2)
        )
        for z in zips
    }
    return app


def _png(rgb: tuple[int, int, int]) -> bytes:
    """A valid 8x8 one-colour PNG (deterministic bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    raw = b"".join(b"\x00" + bytes(rgb) * 8 for _ in range(8))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def _file_bytes(rng, folder: str, stem: str, ext: str) -> bytes:
    title = stem.replace("_", " ").title()
    if ext == ".png":
        return _png((rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)))
    if ext == ".csv":
        rows = [
            f"2024-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d},{rng.choice(W.COMPANIES)},"
            f"{rng.uniform(5, 900):.2f}"
            for _ in range(rng.randint(4, 12))
        ]
        return ("date,counterparty,amount_eur\n" + "\n".join(rows) + "\n").encode()
    if ext == ".json":
        return (
            json.dumps({"title": title, "folder": folder, "items": rng.sample(W.MESSAGE_LINES, 3)}, indent=2)
            + "\n"
        ).encode()
    lines = [f"# {title}" if ext == ".md" else title, ""]
    lines += [rng.choice(W.EMAIL_TOPICS)[1].format(n=rng.randint(100, 999)) for _ in range(rng.randint(2, 5))]
    return ("\n".join(lines) + "\n").encode()


def make_files(u: Universe) -> tuple[SandboxLocalFileSystem, dict[str, bytes]]:
    """The Files app (empty placeholder files, as ARE's own load_state creates) and each file's bytes.

    One file tree for every universe, as Meta's single `gaia2_filesystem/demo_filesystem` serves all
    real scenarios."""
    rng = rng_for(0, "files")
    contents: dict[str, bytes] = {}
    for folder, stems in W.FILE_TOPICS.items():
        exts = [".png"] if folder.startswith("Pictures") else [".txt", ".md", ".csv", ".json"]
        for i in range(FILES_PER_TOPIC * len(stems)):
            stem, ext = f"{stems[i % len(stems)]}_{100 + i}", rng.choice(exts)
            if folder == "Documents/news":
                ext = ".txt"
            contents[f"{folder}/{stem}{ext}"] = _file_bytes(rng, folder, stem, ext)
    rows = "\n".join(f"{d},{desc},{cat},{amount:.2f}" for d, desc, cat, amount in P.EXPENSES_ROWS)
    contents[P.EXPENSES_PATH] = ("date,description,category,amount_eur\n" + rows + "\n").encode()
    fs = SandboxLocalFileSystem(name="Files")
    with EventRegisterer.disable():
        for path in sorted(contents):
            fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
            with fs.open(path, "w"):
                pass
    return fs, contents
