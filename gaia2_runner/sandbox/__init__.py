"""Where scenarios run: the podman backend, image builds and the adapter HTTP client."""
