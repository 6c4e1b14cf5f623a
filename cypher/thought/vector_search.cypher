// Nearest thoughts by embedding, from the namespace's own vector index (a graph of its own
// on FalkorDB, a label of its own on Neo4j), so the answer is the namespace's true nearest
// whatever other namespaces hold. $candidates >= $k widens the HNSW beam for recall;
// rawScore is on the engine's own scale and the adapter converts it to cosine similarity.
{{ vector_query_namespace_nodes(Thought, embedding, $candidates, $embedding) }}
WITH node AS t, score
WHERE t.namespace = $namespace AND {{ visible(t) }}
WITH t, score
ORDER BY {{ nearest_first(score) }}
LIMIT $k
RETURN {{ thought_fields(t) }}, score AS rawScore
