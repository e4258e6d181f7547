#!/usr/bin/env bash
# Lint, format and type checks as configured in pyproject.toml (ruff, mypy), and the generated
# reference pages and module map up to date. Run by .ci/run; run it before you commit.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
[ -x .venv/bin/ruff ] && [ -x .venv/bin/mypy ] || .venv/bin/pip install -q -e ".[test]"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python scripts/gen_reference.py --check
