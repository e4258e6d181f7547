"""Any CLI agent harness (Claude Code, Codex, Gemini CLI, …) driven turn by turn from a profile.

The harness runs unchanged; a profile (profile.toml, docs/reference/agents.md) says how to start a turn, how
to resume the conversation, where its final reply is and which variables point it at the model
relay. The driver turns the daemon's inbox into turns and the replies into messages to the user.
"""
