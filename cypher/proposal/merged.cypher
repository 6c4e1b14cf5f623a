// The shared thought an accepted proposal became (set once; a retry finds it set).
MATCH (p:MergeProposal {id: $id})
WHERE p.namespace = $namespace AND p.status = 'accepted'
SET p.mergedThoughtId = coalesce(p.mergedThoughtId, $mergedThoughtId)
RETURN p.id AS id
