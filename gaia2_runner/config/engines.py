"""The container engines' names: owned here, below sandbox/, because the settings (config/schema.py)
validate them and the sandbox's drivers and engine choice (sandbox/engine_select.py) act on them."""

PODMAN = "podman"
DOCKER = "docker"
ENGINES = (PODMAN, DOCKER)
AUTO = "auto"  # the setting's default: whichever engine answers (sandbox/engine_select.py)
ENGINE_ENV = "GAIA2_ENGINE"  # podman | docker | auto; a setting or --engine wins over it
