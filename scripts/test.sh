#!/usr/bin/env bash
# Run the whole test suite: unit and integration tests in real containers (Docker too: GAIA2_TEST_ENGINES).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(bash "$repo/scripts/bootstrap.sh")"
bash "$repo/scripts/install-browser.sh"   # Debian chromium for the viewer's browser tests
cd "$repo"
# On $GAIA2_TEST_WORKERS pytest-xdist workers (default 3: about 27 min on 2 cores; 0: one test at a
# time, about 55 min; docs/measurements.md, "The test suite").
# tests/support/parallel.py keeps together the tests that share the model server, an image build,
# a fixed directory or a module's runs, turns the sweep off for all but the tests that count
# leftovers, and gives the model server the CPU first.
workers=${GAIA2_TEST_WORKERS:-3}
# The model server's generation on one core beside the other workers (its runs are bounded by time,
# so fewer threads cost the other tests less CPU, not the real-model tests their verdicts). Set
# the workers with GAIA2_TEST_WORKERS, not -n, so that this follows.
[ "$workers" = 0 ] || export GAIA2_LLAMA_THREADS=${GAIA2_LLAMA_THREADS:-1}
exec "$repo/.venv/bin/python" -m pytest -ra --durations=25 -n "$workers" --dist loadgroup "$@"
