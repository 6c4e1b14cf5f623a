// topic/assign for a whole page: thoughts in no topic yet join their topic (BELONGS_TO);
// each topic that gained any counts them as unsummarised, takes its new centroid and gets
// one event naming them, numbered in $topics order in one step under the change log's
// write lock. One row per topic that gained thoughts, reporting it as stored now (a run
// keeps its topics in memory from these rows).
UNWIND range(0, size($topics) - 1) AS position
WITH position, $topics[position] AS item
MATCH (tp:Topic {id: item.topicId})
WHERE tp.namespace = $namespace
UNWIND item.thoughtIds AS thoughtId
MATCH (t:Thought {id: thoughtId})
WHERE t.namespace = $namespace AND t.topicId IS NULL
CREATE (t)-[:BELONGS_TO {namespace: $namespace, at: $at}]->(tp)
SET t.topicId = tp.id
// Grouped by position, not by the item map: hashing each row's item (a centroid of
// hundreds of numbers) to group took half the statement's time.
WITH position, tp, collect(t.id) AS joined
WHERE size(joined) > 0
WITH position, $topics[position] AS item, tp, joined
// The centroid is cleared before it is set, in a step of its own: FalkorDB keeps the old
// value when a stored vector is overwritten directly (only the first SET takes).
SET tp.thoughtCount = tp.thoughtCount + size(joined),
    tp.unsummarisedCount = tp.unsummarisedCount + size(joined),
    tp.updatedAt = $at, tp.{{ space(embedding) }} = null
WITH position, item, tp, joined
SET tp.{{ space(embedding) }} = {{ vector(item.centroid) }}
WITH position, item, tp.id AS topicId, joined
ORDER BY position
WITH collect({topicId: topicId, joined: joined, eventId: item.eventId}) AS changed
MERGE (log:ChangeLog {namespace: $namespace})
ON CREATE SET log.revision = 0
SET log.lock = true
WITH log, log.revision AS base, changed
SET log.revision = base + size(changed)
WITH base, changed
UNWIND range(0, size(changed) - 1) AS i
WITH base, i, changed[i] AS change
MATCH (tp:Topic {id: change.topicId})
WHERE tp.namespace = $namespace
CREATE (ev:ChangeEvent {
  id: change.eventId, namespace: $namespace, revision: base + i + 1, kind: 'assigned',
  subjectKind: 'topic', subjectId: tp.id, sourceIds: change.joined,
  actorId: $actorId, actorName: $actorName, actorKeyId: $actorKeyId, at: $at
})
CREATE (ev)-[:CONCERNS]->(tp)
RETURN tp.id AS id, tp.name AS name, tp.{{ space(embedding) }} AS embedding,
       tp.thoughtCount AS thoughtCount, size(change.joined) AS assigned,
       ev.revision AS revision
