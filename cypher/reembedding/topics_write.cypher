// Topics' vectors in the pinned space; one that has one already keeps it.
UNWIND $rows AS row
MATCH (tp:Topic {id: row.id})
WHERE tp.namespace = $namespace AND tp.{{ space(embedding) }} IS NULL
SET tp.{{ space(embedding) }} = {{ vector(row.vector) }}
RETURN count(tp) AS written
