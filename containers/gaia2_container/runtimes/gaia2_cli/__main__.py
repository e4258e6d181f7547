"""Entry point of the per-app launchers in /gaia2/bin: `python -m gaia2_container.runtimes.gaia2_cli calendar ...`."""

from .cli import main

raise SystemExit(main())
