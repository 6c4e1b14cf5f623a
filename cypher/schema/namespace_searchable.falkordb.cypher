// What a namespace's graph can answer: words once its full-text index is built (created
// last with the namespace, so every index of it exists then), meaning once the thoughts'
// vector index exists and no index is being built (it is created after the other vector
// indexes, also when they are built again after a clean stop). Another process may be
// creating the namespace this moment, one index at a time, and a search on a half-made
// graph fails ("Attempted to access undefined attribute").
CALL db.indexes() YIELD label, types, status
RETURN sum(CASE WHEN label = 'Thought' AND 'FULLTEXT' IN types.content
                     AND status = 'OPERATIONAL' THEN 1 ELSE 0 END) AS textReady,
       sum(CASE WHEN label = '{{ space(ThoughtVector) }}'
                     AND 'VECTOR' IN types.{{ space(embedding) }} THEN 1 ELSE 0 END) AS vectorIndexed,
       sum(CASE WHEN status <> 'OPERATIONAL' THEN 1 ELSE 0 END) AS building
