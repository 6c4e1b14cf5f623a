// The pairs among the given current thoughts whose embeddings' cosine is at least
// $cosine: the near-duplicates by meaning that newer-first reorders
// (app/domain/ranking/near_duplicates.py), found in the engine so that no vector crosses
// the wire. Each pair once, its smaller id first.
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND {{ current(t) }}
WITH collect(t) AS found
UNWIND found AS left
UNWIND found AS right
WITH left, right
WHERE left.id < right.id
  AND {{ stored_cosine(left.{{ space(embedding) }}, right.{{ space(embedding) }}) }} >= $cosine
RETURN left.id AS leftId, right.id AS rightId
