// Nearest thoughts by embedding. The index is global, so it is asked for more candidates
// than needed, filtered to the namespace, and only the k nearest are projected.
// rawScore is on the engine's own scale; the adapter converts it to cosine similarity.
{{ vector_query_nodes(thought_embedding, Thought, embedding, $candidates, $embedding) }}
WITH node AS t, score
WHERE t.namespace = $namespace
WITH t, score
ORDER BY {{ nearest_first(score) }}
LIMIT $k
RETURN {{ thought_fields(t) }}, score AS rawScore
