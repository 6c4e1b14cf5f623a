// The first tier of a two-tier search on FalkorDB: an exact scan of the
// namespace's summarised topics by cosine distance. Not its vector index: that keeps stale
// copies of a node's vector after every SET and ignores a changed vector, and a topic is
// SET (counts, centroid) each time thoughts join it. A namespace holds few topics (5,000
// scan in about 20 ms).
MATCH (tp:Topic)
WHERE tp.namespace = $namespace AND tp.summary IS NOT NULL AND tp.{{ space(embedding) }} IS NOT NULL
WITH tp, vec.cosineDistance(tp.{{ space(embedding) }}, vecf32($embedding)) AS score
ORDER BY score, tp.id
LIMIT $k
RETURN {{ topic_fields(tp) }}, score AS rawScore
