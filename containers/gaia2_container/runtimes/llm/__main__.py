"""`python -m gaia2_container.runtimes.llm`: the entry point the daemon starts for GAIA2_RUNTIME=agent."""

from .loop import main

raise SystemExit(main())
