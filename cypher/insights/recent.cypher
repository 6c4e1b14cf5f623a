// Each person's newest current thoughts written after their since ($people: maps of
// person and since), insights aside, of kind $kind (null: any): up to $limit about them,
// and up to $limit private and theirs (the service merges the two and keeps the newest).
UNWIND $people AS p
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.about = p.person AND t.createdAt > p.since
  AND {{ current(t) }} AND coalesce(t.kind, 'fact') <> 'insight'
  AND ($kind IS NULL OR coalesce(t.kind, 'fact') = $kind)
WITH p.person AS person, t
ORDER BY t.createdAt DESC, t.id DESC
WITH person, collect(t)[0..$limit] AS newest
UNWIND newest AS t
RETURN person, {{ thought_fields(t) }}
UNION
UNWIND $people AS p
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.ownerId = p.person AND t.scope = 'private'
  AND t.createdAt > p.since AND {{ current(t) }} AND coalesce(t.kind, 'fact') <> 'insight'
  AND ($kind IS NULL OR coalesce(t.kind, 'fact') = $kind)
WITH p.person AS person, t
ORDER BY t.createdAt DESC, t.id DESC
WITH person, collect(t)[0..$limit] AS newest
UNWIND newest AS t
RETURN person, {{ thought_fields(t) }}
