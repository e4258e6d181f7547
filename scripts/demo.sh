#!/usr/bin/env bash
# Run the oracle on every bundled demo scenario (builds the images if missing) and print the table.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(bash "$repo/scripts/bootstrap.sh")"
exec "$repo/.venv/bin/gaia2-runner" demo --output-dir "${1:-$repo/out/demo}"
