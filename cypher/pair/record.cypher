// Remembers judged pairs (a cache of verdicts, not knowledge: no change event). A pair
// decided for good (a resolved contradiction) stays so.
UNWIND $rows AS row
MERGE (p:PairCheck {id: row.id})
ON CREATE SET p.namespace = $namespace, p.permanent = false
SET p.judgedAt = $at, p.relation = row.relation
RETURN count(p) AS recorded
