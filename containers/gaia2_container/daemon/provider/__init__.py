"""The provider room: what the run knows about the model provider behind a relay. Whose fault a
failure is (faults.py), the ledger of calls and its arbitration (ledger.py), the runner's own
probe (probe.py), token usage and the token budget (usage.py, token_budget.py), and which paths
are model calls (paths.py)."""
