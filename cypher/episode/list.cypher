// A namespace's episodes, newest first.
MATCH (ep:Episode)
WHERE ep.namespace = $namespace
RETURN {{ episode_fields(ep) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
