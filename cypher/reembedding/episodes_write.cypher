// Episodes' vectors in the pinned space; one that has one already keeps it.
UNWIND $rows AS row
MATCH (ep:Episode {id: row.id})
WHERE ep.namespace = $namespace AND ep.{{ space(embedding) }} IS NULL
SET ep.{{ space(embedding) }} = {{ vector(row.vector) }}
RETURN count(ep) AS written
