// Purge: soft-deleted thoughts whose purgeAt has passed are deleted with their edges, a
// batch at a time. Their events stay in the change log (naming the ids), with a
// 'purged' event each.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.state = 'soft_deleted' AND t.purgeAt <= $at
WITH t
ORDER BY t.purgeAt, t.id
LIMIT $limit
WITH collect(t.id) AS ids, collect(t) AS doomed
WHERE size(ids) > 0
UNWIND doomed AS t
{{ drop_thought_vectors(t) }}
DETACH DELETE t
WITH ids, count(*) AS deleted
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = 0
SET log.lock = true
WITH log, log.revision AS base, ids
SET log.revision = base + size(ids)
WITH base, ids
UNWIND range(0, size(ids) - 1) AS i
CREATE (ev:ChangeEvent {
  id: ids[i] + ':purged', namespace: $namespace, revision: base + i + 1, kind: 'purged',
  subjectKind: 'thought', subjectId: ids[i], sourceIds: [], actorId: $actorId,
  actorName: $actorName, at: $at
})
RETURN count(ev) AS purged
