"""Tiered context assembly (seed 002): what an agent should have in its context window,
inside a token budget, current knowledge first.

Pure modules (model, budget, compression, packer, delta, session_block, predict) hold the
rules; ``candidates`` gathers what the store knows through small protocols; the service
(app/services/context.py) wires them to the store and the search service.
"""
