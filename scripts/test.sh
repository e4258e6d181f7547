#!/usr/bin/env bash
# Run the whole test suite: unit and integration tests in real containers (Docker too: GAIA2_TEST_ENGINES).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(bash "$repo/scripts/bootstrap.sh")"
bash "$repo/scripts/install-browser.sh"   # Debian chromium for the viewer's browser tests
cd "$repo"
# On $GAIA2_TEST_WORKERS pytest-xdist workers (default 0: one test at a time; 3 workers take about
# half the time but are not the default yet: docs/measurements.md, "The test suite").
# tests/support/parallel.py keeps together the tests that share the model server, an image build,
# a fixed directory or a module's runs, turns the sweep off for all but the tests that count
# leftovers, and gives the model server the CPU first.
exec "$repo/.venv/bin/python" -m pytest -ra --durations=25 -n "${GAIA2_TEST_WORKERS:-0}" --dist loadgroup "$@"
