// Records a contradiction between two thoughts (a: the older, b: the newer), linked to
// both, with its event. The id is the pair's fingerprint: no row when it exists already
// (a retried scan, or the pair was flagged before).
MATCH (a:Thought {id: $aId})
MATCH (b:Thought {id: $bId})
WHERE a.namespace = $namespace AND b.namespace = $namespace
OPTIONAL MATCH (existing:Contradiction {id: $id})
WITH a, b, existing
WHERE existing IS NULL
CREATE (c:Contradiction {
  id: $id, namespace: $namespace, thoughtAId: $aId, thoughtBId: $bId, status: 'open',
  relation: $relation, detectedAt: $at, detector: $detector, confidence: $confidence,
  explanation: $explanation
})
CREATE (c)-[:INVOLVES {side: 'a'}]->(a)
CREATE (c)-[:INVOLVES {side: 'b'}]->(b)
WITH c, a, b
{{ append_change(c) }}
CREATE (ev)-[:CONCERNS]->(a)
CREATE (ev)-[:CONCERNS]->(b)
RETURN c.id AS id, log.revision AS revision
