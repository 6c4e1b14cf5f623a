// forget / restore one thought: soft-delete it (restorable until purgeAt) or bring it
// back. No row when it is missing or already in that state.
MATCH (t:Thought {id: $id})
WHERE t.namespace = $namespace AND coalesce(t.state, 'active') <> $state
SET t.state = $state, t.purgeAt = $purgeAt,
    t.forgottenAt = CASE WHEN $state = 'soft_deleted' THEN $at ELSE null END,
    t.lastAccessedAt = CASE WHEN $state = 'active' THEN $at ELSE t.lastAccessedAt END
WITH t
{{ append_change(t) }}
RETURN t.id AS id, log.revision AS revision
