// Undoes a merge: its sources come back as current thoughts and the merged thought is
// retired (soft-deleted, purged later). No row when it is not an active merge.
MATCH (t:Thought {id: $id})
WHERE t.namespace = $namespace AND t.mergeOf IS NOT NULL
  AND coalesce(t.state, 'active') = 'active'
OPTIONAL MATCH (s:Thought)
WHERE s.id IN t.mergeOf AND s.namespace = $namespace AND s.mergedInto = $id
WITH t, collect(s) AS sources
FOREACH (s IN sources |
  SET s.supersededAt = null, s.supersededBy = null, s.mergedInto = null
)
SET t.state = 'soft_deleted', t.forgottenAt = $at, t.purgeAt = $purgeAt,
    t.supersededAt = $at
WITH t, sources
{{ append_change(t) }}
FOREACH (s IN sources | CREATE (ev)-[:CONCERNS]->(s))
RETURN t.id AS id, [s IN sources | s.id] AS restored, log.revision AS revision
