// The catalog graph of embedded FalkorDB: what the store was built with. Every namespace
// lives in a graph of its own, created with schema/namespace on its first write. This
// statement fails with "already indexed" when the index exists; the adapter treats that
// as success and then creates the unique constraint (GRAPH.CONSTRAINT, not Cypher).
CREATE INDEX FOR (m:SchemaMeta) ON (m.key);
