"""Write docs/reference/cli.md, docs/reference/settings.md and the module map in
docs/design/architecture.md from the declarations.

    .venv/bin/python scripts/gen_reference.py          # rewrite both pages
    .venv/bin/python scripts/gen_reference.py --check  # exit 1 when a checked-in page is stale

The pages are rendered by gaia2_runner/cli/reference.py, the map by scripts/module_map.py; the unit
tests use both.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import module_map
from gaia2_runner.cli.reference import GENERATOR, render_all, stale_pages

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a page is stale")
    args = parser.parse_args()
    if args.check:
        stale = stale_pages(ROOT)
        if (ROOT / module_map.DOC).read_text(encoding="utf-8") != module_map.rendered_doc(ROOT):
            stale.append(module_map.DOC)
        for rel in stale:
            print(f"error: {rel} is stale: run .venv/bin/python {GENERATOR}", file=sys.stderr)
        return 1 if stale else 0
    for rel, text in render_all().items():
        (ROOT / rel).write_text(text, encoding="utf-8")
        print(f"wrote {rel}")
    (ROOT / module_map.DOC).write_text(module_map.rendered_doc(ROOT), encoding="utf-8")
    print(f"wrote {module_map.DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
