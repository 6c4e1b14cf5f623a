// The conversational context of search hits: for each anchor, the thoughts of the same
// session written closest to it in the namespace's write order (its revision), so its
// previous and next turns when a session's thoughts are written in order, also when a
// batch wrote them all in the same millisecond; at most $perAnchor each, with their
// embeddings so the caller can score them against the query. The createdAt range keeps
// the read on the (namespace, createdAt) index; a thought without a session has no
// context.
UNWIND $anchors AS a
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.createdAt >= a.earliest AND t.createdAt <= a.latest
  AND t.sessionId = a.sessionId AND t.id <> a.id AND {{ visible(t) }}
WITH a, t
ORDER BY abs(t.revision - a.revision), t.id
WITH a, collect(t)[0..$perAnchor] AS near
UNWIND near AS t
RETURN a.id AS anchorId, {{ thought_fields(t) }}, t.{{ space(embedding) }} AS embedding
