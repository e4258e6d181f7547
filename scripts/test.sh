#!/usr/bin/env bash
# Run the whole test suite: unit and integration tests in real containers (Docker too: GAIA2_TEST_ENGINES).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(bash "$repo/scripts/bootstrap.sh")"
bash "$repo/scripts/install-browser.sh"   # Debian chromium for the viewer's browser tests
cd "$repo"
# On $GAIA2_TEST_WORKERS pytest-xdist workers (default 0, one test at a time, until a whole parallel run
# has passed on a fresh clone; 3 is the target: the suite mostly waits on containers and the
# model server, so 3 pay on 2 cores). tests/support/parallel.py keeps apart the tests that share an
# engine's leftovers, the model server, an image build or a fixed directory. `-n 0`: one at a time.
exec "$repo/.venv/bin/python" -m pytest -ra --durations=25 -n "${GAIA2_TEST_WORKERS:-0}" --dist loadgroup "$@"
