// Lineage reasons' vectors in the pinned space; one that has one already keeps it.
UNWIND $rows AS row
MATCH (a:Thought {id: row.sourceId})-[r:REFINES|CONSOLIDATES|SUPERSEDES]->(b:Thought {id: row.targetId})
WHERE type(r) = row.type AND r.reason = row.text AND r.{{ space(reasonEmbedding) }} IS NULL
SET r.{{ space(reasonEmbedding) }} = {{ vector(row.vector) }}
RETURN count(r) AS written
