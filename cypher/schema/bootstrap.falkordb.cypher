// Schema for embedded FalkorDB. These statements fail with "already indexed" when the
// index exists; the adapter treats that as success. Unique constraints are not Cypher in
// FalkorDB (GRAPH.CONSTRAINT); the adapter creates them after these exact-match indexes.
CREATE INDEX FOR (t:Thought) ON (t.id);
CREATE INDEX FOR (t:Thought) ON (t.namespace);
CREATE INDEX FOR (t:Thought) ON (t.createdAt);
CREATE INDEX FOR (e:ChangeEvent) ON (e.id);
CREATE INDEX FOR (e:ChangeEvent) ON (e.namespace);
CREATE INDEX FOR (l:ChangeLog) ON (l.namespace);
CREATE INDEX FOR (m:SchemaMeta) ON (m.key);
CREATE VECTOR INDEX FOR (t:Thought) ON (t.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR ()-[r:REFINES]-() ON (r.reasonEmbedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
CREATE VECTOR INDEX FOR ()-[r:CONSOLIDATES]-() ON (r.reasonEmbedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine'};
CREATE FULLTEXT INDEX FOR (t:Thought) ON (t.content);
