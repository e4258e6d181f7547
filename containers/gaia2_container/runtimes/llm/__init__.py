"""LLM agent runtime: a tool-calling loop over the daemon's tool API (`GAIA2_RUNTIME=agent`).

Run as `python -m gaia2_container.runtimes.llm`.

Deliberately independent of ARE: it only talks HTTP to the daemon and to one LLM provider.
"""
