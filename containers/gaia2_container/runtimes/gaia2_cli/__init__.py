"""Meta's gaia2-cli agent surface: the app commands and the instructions a CLI harness sees."""
