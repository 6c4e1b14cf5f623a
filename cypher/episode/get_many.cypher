MATCH (ep:Episode)
WHERE ep.id IN $ids AND ep.namespace = $namespace
RETURN {{ episode_fields(ep) }}
