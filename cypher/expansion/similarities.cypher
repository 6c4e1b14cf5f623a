// How close each expansion candidate (search hits, keyword hits and their session
// neighbours, each already read through the search's time view) is to the query and to
// each keyword: cosines computed in the engine, so no embedding crosses the wire.
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace
RETURN t.id AS id, {{ cosine(t.{{ space(embedding) }}, $embedding) }} AS similarity,
       [w IN $wordEmbeddings | {{ cosine(t.{{ space(embedding) }}, w) }}] AS wordSimilarities
