// A namespace's events since $since (epoch ms), newest first, optionally of one node
// (hotpath, context, episodic, worker) and one op.
MATCH (e:OpsEvent)
WHERE e.namespace = $namespace AND e.at >= $since
  AND ($node IS NULL OR e.node = $node) AND ($op IS NULL OR e.op = $op)
RETURN e.id AS id, e.node AS node, e.op AS op, e.status AS status, e.memoryId AS memoryId,
       e.category AS category, e.similarity AS similarity, e.at AS at
ORDER BY at DESC, id DESC
LIMIT $limit
