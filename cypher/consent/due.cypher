// Pending requests whose time ran out: what the expiry job closes, oldest first.
MATCH (r:ConsentRequest)
WHERE r.namespace = $namespace AND r.status = 'pending' AND r.expiresAt <= $now
RETURN {{ consent_fields(r) }}
ORDER BY expiresAt, id
LIMIT $limit
