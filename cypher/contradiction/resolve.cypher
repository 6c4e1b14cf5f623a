// Decides an open contradiction in one write: its resolution, a SUPERSEDES edge from the
// winner to the loser when there is one (a_wins, b_wins, or the merged thought over both
// for merged), the pair recorded as judged for good (it is never flagged again), and the
// event. No row when it is not open (resolved already: a retry, or someone was first).
MATCH (c:Contradiction {id: $id})
WHERE c.namespace = $namespace AND c.status = 'open'
// The two thoughts along the contradiction's INVOLVES edges: matching them by id from
// c's properties made FalkorDB's planner join every thought of the namespace (12 ms a
// resolve at 10,000 thoughts).
MATCH (c)-[:INVOLVES {side: 'a'}]->(a:Thought)
MATCH (c)-[:INVOLVES {side: 'b'}]->(b:Thought)
OPTIONAL MATCH (winner:Thought {id: $winnerId})
WITH c, a, b, winner,
     CASE WHEN $winnerId IS NULL THEN [] WHEN $winnerId = a.id THEN [b]
          WHEN $winnerId = b.id THEN [a] ELSE [a, b] END AS losers
SET c.status = 'resolved', c.resolution = $resolution, c.note = $note,
    c.resolvedBy = $resolvedBy, c.resolvedAt = $at, c.mergedThoughtId = $mergedThoughtId
FOREACH (loser IN CASE WHEN winner IS NULL THEN [] ELSE losers END |
  CREATE (winner)-[:SUPERSEDES {namespace: $namespace, reason: $reason,
                                {{ space(reasonEmbedding) }}: {{ vector($reasonEmbedding) }},
                                detector: $resolvedBy, confidence: 1.0, createdAt: $at}]->(loser)
  SET loser.supersededAt = coalesce(loser.supersededAt, $at),
      loser.supersededBy = coalesce(loser.supersededBy, winner.id)
)
MERGE (p:PairCheck {id: $pairId})
ON CREATE SET p.namespace = $namespace
SET p.judgedAt = $at, p.relation = $resolution, p.permanent = true
WITH c, a, b
{{ append_change(c) }}
CREATE (ev)-[:CONCERNS]->(a)
CREATE (ev)-[:CONCERNS]->(b)
RETURN c.id AS id, log.revision AS revision
