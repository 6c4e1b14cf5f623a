// The first tier of a two-tier search: summarised topics nearest the query.
// Neo4j's topic index spans namespaces, so $candidates is wider than $k.
{{ vector_query_nodes({{ space(topic_embedding) }}, Topic, {{ space(embedding) }}, $candidates, $embedding) }}
WITH node AS tp, score
WHERE tp.namespace = $namespace AND tp.summary IS NOT NULL
WITH tp, score
ORDER BY {{ nearest_first(score) }}, tp.id
LIMIT $k
RETURN {{ topic_fields(tp) }}, score AS rawScore
