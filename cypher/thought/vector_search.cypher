// Nearest thoughts by embedding. The index is global, so it is asked for more candidates
// than needed and filtered to the namespace; rawScore is on the engine's own scale and
// the adapter converts it to cosine similarity.
{{ vector_query_nodes(thought_embedding, Thought, embedding, $candidates, $embedding) }}
WITH node AS t, score
WHERE t.namespace = $namespace
RETURN {{ thought_fields(t) }}, score AS rawScore
