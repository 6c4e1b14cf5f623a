// Every topic of the namespace with its centroid and size: assignment compares a thought
// with each (a namespace has few topics; the per-namespace vector index serves retrieval).
MATCH (tp:Topic)
WHERE tp.namespace = $namespace
RETURN tp.id AS id, tp.name AS name, tp.{{ space(embedding) }} AS embedding, tp.thoughtCount AS thoughtCount
