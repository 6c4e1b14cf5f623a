// A namespace's contradictions, newest first, optionally of one status.
MATCH (c:Contradiction)
WHERE c.namespace = $namespace AND ($status IS NULL OR c.status = $status)
RETURN {{ contradiction_fields(c) }}
ORDER BY detectedAt DESC, id DESC
LIMIT $limit
