// The conversational context of search hits: for each anchor, the thoughts of the same
// session written closest to it in the namespace's write order (its revision), so its
// previous and next turns when a session's thoughts are written in order, also when a
// batch wrote them all in the same millisecond; at most $perAnchor each, without
// embeddings (expansion.similarities scores every candidate once, in the engine). The
// createdAt range and the session keep the read on the indexes (on Neo4j the session's:
// a batch written in one go shares its createdAt, and the range then holds the whole
// batch); a thought without a session has no context.
UNWIND $anchors AS a
MATCH (t:Thought)
{{ use_index(t, Thought, namespace, sessionId) }}
WHERE t.namespace = $namespace AND t.createdAt >= a.earliest AND t.createdAt <= a.latest
  AND t.sessionId = a.sessionId AND t.id <> a.id AND {{ visible(t) }}
WITH a, t
ORDER BY abs(t.revision - a.revision), t.id
WITH a, collect(t)[0..$perAnchor] AS near
UNWIND near AS t
RETURN a.id AS anchorId, {{ thought_fields(t) }}
