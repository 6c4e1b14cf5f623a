// Each subject's nearest thoughts by embedding, a whole page of subjects in one statement:
// the filters and order of search/vector_candidates applied per subject (its namespace's own
// index, the time view, the k nearest of a $candidates-wide beam). Rows come back in
// nearest-first order within each subject, equal scores in id order (so which of two
// identical vectors the k cut keeps does not depend on how the engine sorts); the subject
// itself is left in (the caller drops it, as it does after a single search). rawScore is
// on the engine's own scale. A subject with a scope keeps only thoughts of its partition
// (the same scope, and for private the same owner) before the k cut.
UNWIND $subjects AS subject
{{ vector_query_namespace_nodes(Thought, {{ space(embedding) }}, $candidates, subject.embedding) }}
WITH subject, subject.id AS subjectId, node AS t, score
WHERE t.namespace = $namespace AND {{ visible(t) }}
  AND (subject.scope IS NULL OR (coalesce(t.scope, 'shared') = subject.scope
       AND (subject.scope <> 'private' OR t.ownerId = subject.ownerId)))
WITH subjectId, t, score
ORDER BY {{ nearest_first(score) }}, t.id
WITH subjectId, collect(t)[0..$k] AS near, collect(score)[0..$k] AS scores
UNWIND range(0, size(near) - 1) AS rank
WITH subjectId, rank, near[rank] AS t, scores[rank] AS score
RETURN subjectId, rank, {{ thought_fields(t) }}, score AS rawScore
ORDER BY subjectId, rank
