// The retention limit: a namespace keeps its newest $keep events, the rest are deleted.
MATCH (e:OpsEvent)
WHERE e.namespace = $namespace AND e.at >= 0
WITH e
ORDER BY e.at DESC, e.id DESC
SKIP $keep
DETACH DELETE e
RETURN count(*) AS trimmed
