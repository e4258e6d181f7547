"""The agent surface of Meta's gaia2-cli, over ARE's tools.

- `table`: Meta's command/subcommand/flag names <-> ARE classes, functions and arguments (plain data).
- `surface`: the commands of one scenario, from the daemon's tool list (`GET /tools`).
- `cli`: one command as a click group; each subcommand is one ARE tool call through the tool API.
- `instructions`: the AGENTS.md-style rules and command list a CLI harness gets as instructions.
"""
