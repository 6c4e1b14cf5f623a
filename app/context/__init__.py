"""Tiered context assembly (seed 002): what an agent should have in its context window,
inside a token budget, current knowledge first.

Pure modules (model, budget, compression, packer, delta, session_block, predict) hold the
rules; ``items`` and ``gathering`` turn what the store knows into candidates; the service
(app/services/context.py) wires them to the store and the search service.
"""
