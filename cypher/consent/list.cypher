// A namespace's requests, newest first: optionally of one status, and only those about
// or proposed by one user ($userId null: all).
MATCH (r:ConsentRequest)
WHERE r.namespace = $namespace AND ($status IS NULL OR r.status = $status)
  AND ($userId IS NULL OR r.person = $userId OR r.proposedByUser = $userId)
RETURN {{ consent_fields(r) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
