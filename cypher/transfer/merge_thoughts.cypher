// Restores a batch of Thought nodes (import). MERGE on the exported id, properties set
// only on creation and the embedding only where there is none: a second import of the
// same file changes nothing. `vector` is the exported embedding, or the new embedder's
// when the import re-embeds.
UNWIND $rows AS row
MERGE (n:Thought {id: row.id})
ON CREATE SET n += row.properties
FOREACH (_ IN CASE WHEN n.{{ space(embedding) }} IS NULL AND row.vector IS NOT NULL THEN [1] ELSE [] END |
  SET n.{{ space(embedding) }} = {{ vector(row.vector) }})
{{ merge_thought_vector(n) }}
{{ namespace_label(n) }}
// The label per type, as thought/create sets it (a label cannot be a parameter on FalkorDB).
FOREACH (_ IN CASE WHEN row.properties.type = 'original' THEN [1] ELSE [] END | SET n:Original)
FOREACH (_ IN CASE WHEN row.properties.type = 'refinement' THEN [1] ELSE [] END | SET n:Refinement)
FOREACH (_ IN CASE WHEN row.properties.type = 'consolidation' THEN [1] ELSE [] END | SET n:Consolidation)
RETURN count(n) AS merged
