"""The gaia2 apps daemon: one ARE scenario, its apps served over HTTP, judged turn by turn."""
