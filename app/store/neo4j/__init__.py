"""The Neo4j 5.26+ / 2025.x engine, reached over Bolt with the official async driver."""

from thoughtgraph.store.neo4j.adapter import Neo4jGraphStore

__all__ = ["Neo4jGraphStore"]
