"""Capabilities of the service, one module each, over the store and embedder interfaces."""
