// A batch of a namespace's thoughts loses its vectors of the pinned (retired) space, and
// on FalkorDB their indexed vector nodes go; the count says whether any were left.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.{{ space(embedding) }} IS NOT NULL
WITH t
LIMIT $limit
{{ drop_thought_vector(t) }}
SET t.{{ space(embedding) }} = null
RETURN count(t) AS cleared
