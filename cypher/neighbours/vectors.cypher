// A page of the namespace's current thoughts with their embeddings, in id order after
// $after: what a consolidation run reads once to find every page's neighbours in memory.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND {{ current(t) }} AND t.id > $after
WITH t
ORDER BY t.id
LIMIT $limit
RETURN {{ thought_fields(t) }}, t.{{ space(embedding) }} AS embedding
