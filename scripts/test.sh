#!/usr/bin/env bash
# Run the whole test suite: unit and integration tests in real containers (Docker too: GAIA2_TEST_ENGINES).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(bash "$repo/scripts/bootstrap.sh")"
bash "$repo/scripts/install-browser.sh"   # Debian chromium for the viewer's browser tests
cd "$repo"
# On $GAIA2_TEST_WORKERS pytest-xdist workers (default 0: one test at a time; 3 workers take about
# half the time, not the default yet: docs/measurements.md, "The test suite"). tests/support/parallel.py
# keeps apart the tests that share an engine's leftovers, the model server, an image build or a
# fixed directory, and gives the model server the CPU first.
exec "$repo/.venv/bin/python" -m pytest -ra --durations=25 -n "${GAIA2_TEST_WORKERS:-0}" --dist loadgroup "$@"
