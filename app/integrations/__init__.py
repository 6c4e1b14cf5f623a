"""Clients of the service for other frameworks: they talk to it over its API only."""
