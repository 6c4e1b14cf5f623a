// pin / unpin one thought: a pinned thought is never forgotten. No row when missing or
// already so.
MATCH (t:Thought {id: $id})
WHERE t.namespace = $namespace AND coalesce(t.pinned, false) <> $pinned
SET t.pinned = $pinned
WITH t
{{ append_change(t) }}
RETURN t.id AS id, log.revision AS revision
