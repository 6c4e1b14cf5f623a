MATCH (p:MergeProposal)
WHERE p.id IN $ids AND p.namespace = $namespace
RETURN {{ proposal_fields(p) }}
