"""In-container side of gaia2-runner: the apps daemon, the adapter API, app CLIs and the oracle runtime.

Runs inside the images only, next to Meta's ARE package (`are`), which it uses for app semantics,
the event loop and the judge instead of re-implementing them.
"""
