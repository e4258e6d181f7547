"""Where scenarios run: the engine (podman or Docker) behind one Sandbox, image builds, the adapter HTTP client."""
