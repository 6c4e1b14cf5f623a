// RELATED_TO edges from thoughts to their nearest neighbours, at most one per unordered
// pair: each edge runs from the lower id to the higher, so MERGE finds it whichever side
// is linked first. One event per thought that gained an edge, numbered in one step under
// the change log's write lock.
UNWIND $items AS item
MATCH (s:Thought {id: item.id})
WHERE s.namespace = $namespace
UNWIND item.neighbours AS n
MATCH (o:Thought {id: n.id})
WHERE o.namespace = $namespace AND o.id <> s.id
WITH s, item, o, n,
     CASE WHEN s.id < o.id THEN s ELSE o END AS low,
     CASE WHEN s.id < o.id THEN o ELSE s END AS high
MERGE (low)-[r:RELATED_TO]->(high)
ON CREATE SET r.namespace = $namespace, r.strength = n.strength, r.createdAt = $at
WITH s, item, collect(CASE WHEN r.createdAt = $at THEN o.id END) AS added
WHERE size(added) > 0
WITH collect({subjectId: s.id, added: added, eventId: item.eventId}) AS changed
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = 0
SET log.lock = true
WITH log, log.revision AS base, changed
SET log.revision = base + size(changed)
WITH base, changed
UNWIND range(0, size(changed) - 1) AS i
WITH base, i, changed[i] AS change
MATCH (subject:Thought {id: change.subjectId})
CREATE (ev:ChangeEvent {
  id: change.eventId, namespace: $namespace, revision: base + i + 1, kind: 'linked',
  subjectKind: 'thought', subjectId: subject.id, sourceIds: change.added,
  actorId: $actorId, actorName: $actorName, at: $at
})
CREATE (ev)-[:CONCERNS]->(subject)
RETURN count(ev) AS linkedThoughts, sum(size(change.added)) AS links
