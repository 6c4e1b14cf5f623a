// The newer thought SUPERSEDES the older: the edge (with its reason and the reason's
// embedding), the older one's retirement on the service's time axis, and the event, in
// one write. No row when either is missing, they are the same, or the edge exists in
// either direction (a retry, or a decision already taken the other way).
MATCH (newer:Thought {id: $newerId})
MATCH (older:Thought {id: $olderId})
WHERE newer.namespace = $namespace AND older.namespace = $namespace AND newer.id <> older.id
  AND NOT (newer)-[:SUPERSEDES]-(older)
CREATE (newer)-[:SUPERSEDES {namespace: $namespace, reason: $reason,
                             {{ space(reasonEmbedding) }}: {{ vector($reasonEmbedding) }},
                             detector: $detector, confidence: $confidence, createdAt: $at}]->(older)
SET older.supersededAt = coalesce(older.supersededAt, $at),
    older.supersededBy = coalesce(older.supersededBy, newer.id)
WITH newer, older
{{ append_change(older) }}
CREATE (ev)-[:CONCERNS]->(newer)
RETURN older.id AS olderId, log.revision AS revision
