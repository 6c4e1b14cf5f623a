// Active forgetting: thoughts not accessed since $accessedBefore, below the importance
// threshold or superseded, and not pinned, are soft-deleted (restorable until purgeAt), a batch at a
// time, each with its own event numbered under the change log's write lock.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND coalesce(t.state, 'active') = 'active'
  AND coalesce(t.pinned, false) = false
  AND (coalesce(t.importance, 3) < $belowImportance OR t.supersededAt IS NOT NULL)
  AND coalesce(t.lastAccessedAt, t.createdAt) < $accessedBefore
WITH t
ORDER BY t.createdAt, t.id
LIMIT $limit
SET t.state = 'soft_deleted', t.forgottenAt = $at, t.purgeAt = $purgeAt
WITH collect(t) AS forgotten
WHERE size(forgotten) > 0
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = 0
SET log.lock = true
WITH log, log.revision AS base, forgotten
SET log.revision = base + size(forgotten)
WITH base, forgotten
UNWIND range(0, size(forgotten) - 1) AS i
WITH base, i, forgotten[i] AS t
CREATE (ev:ChangeEvent {
  id: t.id + ':soft_deleted:' + toString($at), namespace: $namespace, revision: base + i + 1,
  kind: 'soft_deleted', subjectKind: 'thought', subjectId: t.id, sourceIds: [],
  actorId: $actorId, actorName: $actorName, at: $at
})
CREATE (ev)-[:CONCERNS]->(t)
RETURN count(ev) AS forgotten
