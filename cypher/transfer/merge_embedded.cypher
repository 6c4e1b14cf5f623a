// Restores a batch of nodes of one label that carry an embedding (import). MERGE on the
// exported id, properties set only on creation and the embedding only where there is
// none: a second import of the same file changes nothing. `vector` is the exported
// embedding, or the new embedder's when the import re-embeds.
//@ merge_topics: label=Topic
//@ merge_episodes: label=Episode
UNWIND $rows AS row
MERGE (n:{{ label }} {id: row.id})
ON CREATE SET n += row.properties
FOREACH (_ IN CASE WHEN n.{{ space(embedding) }} IS NULL AND row.vector IS NOT NULL THEN [1] ELSE [] END |
  SET n.{{ space(embedding) }} = {{ vector(row.vector) }})
RETURN count(n) AS merged
