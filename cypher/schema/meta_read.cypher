// The embedding dimension and embedder a store was built with, if it was built yet.
OPTIONAL MATCH (m:SchemaMeta {key: 'schema'})
RETURN m.embeddingDimension AS embeddingDimension, m.embedder AS embedder,
       m.schemaVersion AS schemaVersion
