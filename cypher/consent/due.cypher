// Pending requests whose time ran out: what the expiry job closes, oldest first.
MATCH (r:ConsentRequest)
WHERE r.namespace = $namespace AND r.status = 'pending' AND r.expiresAt <= $now
RETURN r.id AS id
ORDER BY r.expiresAt, r.id
LIMIT $limit
