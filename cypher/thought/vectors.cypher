// The embeddings of current thoughts by id, nothing else: what newer-first by meaning compares.
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND {{ current(t) }}
RETURN t.id AS id, t.{{ space(embedding) }} AS embedding
