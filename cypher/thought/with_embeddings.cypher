// Current thoughts by id, with their embeddings: what a scan of fresh writes compares.
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND {{ current(t) }}
RETURN {{ thought_fields(t) }}, t.{{ space(embedding) }} AS embedding
