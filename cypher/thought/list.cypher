// One page of thoughts, newest first; the cursor is the last (createdAt, id) seen. A
// filter on a kind other than fact, or on a tag, has statements of its own
// (list_of_kind, list_tagged) that an index narrows first.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND {{ listing(t) }}
RETURN {{ thought_fields(t) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
