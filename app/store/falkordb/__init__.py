"""Embedded FalkorDB: a child redis-server with the FalkorDB module, and its store adapter."""
