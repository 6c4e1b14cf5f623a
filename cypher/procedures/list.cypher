// The newest workflows or code patterns of one kind, with the structure kept on each, in
// one read. Everything that keeps one out is decided before the limit, so a page holds
// $limit procedures whenever that many exist: the time view and the reader's scope, the
// categories the reader's allowlist names ($categories: null for any), and unless
// $includeRetired a refinement or consolidation of it the reader sees (as
// thought/refiners; being superseded is the view's $currentOnly). The (namespace, kind)
// lookup comes first, as in thought/list_of_kind.
MATCH (t:Thought)
WHERE t.kind = $kind AND t.namespace = $namespace
WITH t
WHERE t.procedureTrigger IS NOT NULL
  AND ($categories IS NULL OR t.category IN $categories)
  AND {{ visible(t) }}
OPTIONAL MATCH (r:Thought)-[:REFINES|CONSOLIDATES]->(t)
WHERE NOT $includeRetired AND coalesce(r.state, 'active') = 'active' AND {{ in_scope(r) }}
WITH t, count(r) AS refiners
WHERE refiners = 0
RETURN {{ thought_fields(t) }},
  t.procedureTrigger AS procedureTrigger, t.procedureHint AS procedureHint,
  t.procedureSteps AS procedureSteps, t.procedureTemplate AS procedureTemplate,
  t.procedureFiles AS procedureFiles
ORDER BY createdAt DESC, id DESC
LIMIT $limit
