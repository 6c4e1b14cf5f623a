MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace
RETURN {{ thought_fields(t) }}
