// Records what the store was built with; an existing record is never overwritten.
MERGE (m:SchemaMeta {key: 'schema'})
ON CREATE SET m.embeddingDimension = $dimension, m.embedder = $embedder,
              m.schemaVersion = $schemaVersion, m.createdAt = $now
RETURN m.embeddingDimension AS embeddingDimension, m.embedder AS embedder,
       m.createdAt = $now AS createdNow
