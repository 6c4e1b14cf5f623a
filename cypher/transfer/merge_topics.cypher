// Restores a batch of Topic nodes (import). MERGE on the exported id, properties set
// only on creation and the embedding only where there is none: a second import of the
// same file changes nothing. `vector` is the exported embedding, or the new embedder's
// when the import re-embeds.
UNWIND $rows AS row
MERGE (n:Topic {id: row.id})
ON CREATE SET n += row.properties
FOREACH (_ IN CASE WHEN n.embedding IS NULL AND row.vector IS NOT NULL THEN [1] ELSE [] END |
  SET n.embedding = {{ vector(row.vector) }})

RETURN count(n) AS merged
