// One user's current private thoughts with their embeddings, newest first: what a merge
// proposal compares across users.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.scope = 'private' AND t.ownerId = $ownerId
  AND {{ current(t) }}
RETURN {{ thought_fields(t) }}, t.{{ space(embedding) }} AS embedding
ORDER BY createdAt DESC, id DESC
LIMIT $limit
