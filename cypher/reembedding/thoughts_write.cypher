// Thoughts' vectors in the pinned space (and, on FalkorDB, their indexed vector nodes);
// a thought that has one already keeps it, so a repeated batch writes nothing.
UNWIND $rows AS row
MATCH (t:Thought {id: row.id})
WHERE t.namespace = $namespace AND t.{{ space(embedding) }} IS NULL
SET t.{{ space(embedding) }} = {{ vector(row.vector) }}
{{ merge_thought_vector(t) }}
RETURN count(t) AS written
