// The merges each of some consolidation runs made: the ids of the consolidation thoughts
// they wrote, oldest first, at most $limit per run (undone ones included).
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.runId IN $runIds
WITH t
ORDER BY t.createdAt, t.id
WITH t.runId AS runId, collect(t.id) AS ids
RETURN runId, ids[..$limit] AS ids
