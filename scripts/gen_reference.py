"""Write docs/reference/cli.md and docs/reference/settings.md from the declarations.

    .venv/bin/python scripts/gen_reference.py          # rewrite both pages
    .venv/bin/python scripts/gen_reference.py --check  # exit 1 when a checked-in page is stale

The rendering lives in gaia2_runner/cli/reference.py, which the unit test uses too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gaia2_runner.cli.reference import GENERATOR, render_all, stale_pages

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a page is stale")
    args = parser.parse_args()
    if args.check:
        stale = stale_pages(ROOT)
        for rel in stale:
            print(f"error: {rel} is stale: run .venv/bin/python {GENERATOR}", file=sys.stderr)
        return 1 if stale else 0
    for rel, text in render_all().items():
        (ROOT / rel).write_text(text, encoding="utf-8")
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
