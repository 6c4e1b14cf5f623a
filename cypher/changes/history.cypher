// Events that concern a subject (any node kind): its creation and every change to it,
// oldest first, at most $limit.
MATCH (e:ChangeEvent)-[:CONCERNS]->(s {id: $subjectId})
WHERE e.namespace = $namespace
RETURN {{ change_fields(e) }}
ORDER BY revision
LIMIT $limit
