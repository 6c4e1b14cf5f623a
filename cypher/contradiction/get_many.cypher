MATCH (c:Contradiction)
WHERE c.id IN $ids AND c.namespace = $namespace
RETURN {{ contradiction_fields(c) }}
