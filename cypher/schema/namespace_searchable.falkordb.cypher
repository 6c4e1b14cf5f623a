// Whether a namespace's graph can answer searches: its thought vector index and its
// full-text index exist and are built. Another process may be creating the namespace this
// moment (schema.namespace, one index at a time), and a search on a half-made graph fails
// ("Attempted to access undefined attribute"); the full-text index is created last, so
// once it is there every index of the namespace is.
CALL db.indexes() YIELD label, types, status
WHERE status = 'OPERATIONAL'
  AND ((label = '{{ space(ThoughtVector) }}' AND 'VECTOR' IN types.{{ space(embedding) }})
       OR (label = 'Thought' AND 'FULLTEXT' IN types.content))
RETURN count(label) AS ready
