// The people with activity since $since, most recently active first: the users current
// thoughts written since then (insights aside) are about, or are private and theirs,
// each with the time of their newest such thought.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.createdAt >= $since AND {{ current(t) }}
  AND coalesce(t.kind, 'fact') <> 'insight'
UNWIND [t.about, CASE WHEN t.scope = 'private' THEN t.ownerId ELSE null END] AS person
WITH person, max(t.createdAt) AS lastActivity
WHERE person IS NOT NULL
RETURN person, lastActivity
ORDER BY lastActivity DESC, person
LIMIT $limit
