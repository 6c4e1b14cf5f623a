MATCH (r:ConsentRequest)
WHERE r.id IN $ids AND r.namespace = $namespace
RETURN {{ consent_fields(r) }}
