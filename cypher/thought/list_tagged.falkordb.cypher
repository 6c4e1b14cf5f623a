// thought.list for one tag (conventions in context assembly, integrations' items): the
// tag lookup comes first, alone, so that FalkorDB answers it from its index on the tags
// list (see list_of_kind).
MATCH (t:Thought)
WHERE $tag IN t.tags AND t.namespace = $namespace
WITH t
WHERE {{ listing(t) }}
RETURN {{ thought_fields(t) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
