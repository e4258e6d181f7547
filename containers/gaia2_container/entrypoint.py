"""Container entry point (runs as root): the daemon, which then starts the agent runtime."""

from .daemon.main import main

if __name__ == "__main__":
    raise SystemExit(main())
