// Records a proposal to merge near-duplicate private thoughts of several users into one
// shared thought, linked to them, with its event. The id comes from the thoughts: no row
// when it exists (the same merge proposed again).
MATCH (t:Thought)
WHERE t.id IN $thoughtIds AND t.namespace = $namespace
WITH collect(t) AS thoughts
WHERE size(thoughts) = size($thoughtIds)
OPTIONAL MATCH (existing:MergeProposal {id: $id})
WITH thoughts, existing
WHERE existing IS NULL
CREATE (p:MergeProposal {
  id: $id, namespace: $namespace, status: 'open', thoughtIds: $thoughtIds,
  ownerIds: $ownerIds, decisions: $decisions, similarity: $similarity, createdAt: $at
})
FOREACH (t IN thoughts | CREATE (p)-[:PROPOSES]->(t))
WITH p
{{ append_change(p) }}
RETURN p.id AS id
