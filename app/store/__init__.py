"""Graph storage: one interface, two engines (embedded FalkorDB and Neo4j)."""
