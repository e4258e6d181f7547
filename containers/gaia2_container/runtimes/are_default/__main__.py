"""`python -m gaia2_container.runtimes.are_default`: what the daemon starts for GAIA2_RUNTIME=are-default."""

from .main import main

raise SystemExit(main())
