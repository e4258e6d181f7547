"""In-container side of gaia2-runner, laid out by role.

- `contract`: the container's half of the runner <-> container contract (stdlib only).
- `daemon`: runs as root next to Meta's ARE package (`are`), which it uses for app semantics,
  the event loop and the judge instead of re-implementing them; serves the adapter and tool APIs.
- `runtimes`: what runs as the agent user (oracle replay, LLM agent, app CLIs); they reach the
  scenario only through the daemon's tool API and never import ARE.
"""
