// What a namespace's graph can answer in the request's space: words once its full-text
// index is built (created last with the namespace, so every index of it exists then),
// meaning once the thoughts' vector index exists and none of the space's vector indexes
// is being built (the thoughts' is created after the others, also when they are built
// again after a clean stop; another space's, a re-embed's, do not count). Another process
// may be creating the namespace this moment, one index at a time, and a search on a
// half-made graph fails ("Attempted to access undefined attribute").
CALL db.indexes() YIELD label, types, status
RETURN sum(CASE WHEN label = 'Thought' AND 'FULLTEXT' IN types.content
                     AND status = 'OPERATIONAL' THEN 1 ELSE 0 END) AS textReady,
       sum(CASE WHEN label = '{{ space(ThoughtVector) }}'
                     AND 'VECTOR' IN types.{{ space(embedding) }} THEN 1 ELSE 0 END) AS vectorIndexed,
       sum(CASE WHEN status <> 'OPERATIONAL'
                     AND (types.{{ space(embedding) }} IS NOT NULL
                          OR types.{{ space(reasonEmbedding) }} IS NOT NULL)
                THEN 1 ELSE 0 END) AS building
