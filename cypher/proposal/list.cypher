// The proposals involving a user (any user: null), newest first, optionally of one status.
MATCH (p:MergeProposal)
WHERE p.namespace = $namespace AND ($status IS NULL OR p.status = $status)
  AND ($ownerId IS NULL OR $ownerId IN p.ownerIds)
RETURN {{ proposal_fields(p) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
