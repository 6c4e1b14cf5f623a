// The pairs among the given current thoughts whose embeddings' cosine is at least
// $cosine: the near-duplicates by meaning that newer-first reorders
// (app/domain/ranking/near_duplicates.py), found in the engine so that no vector crosses
// the wire. Each pair once, its smaller id first. Each vector is read once, into the
// list the pairs are made from (on Neo4j a property read per pair took twice the time).
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND {{ current(t) }}
WITH collect({id: t.id, vector: t.{{ space(embedding) }}}) AS found
UNWIND found AS left
UNWIND found AS right
WITH left, right
WHERE left.id < right.id
  AND {{ stored_cosine(left.vector, right.vector) }} >= $cosine
RETURN left.id AS leftId, right.id AS rightId
