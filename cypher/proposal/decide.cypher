// One owner's decision on every part of an open proposal that is theirs, and the outcome
// once no part is pending (accepted: two or more parts accepted), with its event. The
// decisions are rewritten inside the statement, so two owners deciding at once both
// count. No row when the proposal is not open or has no part of this owner.
MATCH (p:MergeProposal {id: $id})
WHERE p.namespace = $namespace AND p.status = 'open' AND $ownerId IN p.ownerIds
WITH p, [i IN range(0, size(p.ownerIds) - 1) |
  CASE WHEN p.ownerIds[i] = $ownerId THEN $decision ELSE p.decisions[i] END] AS decisions
WITH p, decisions,
     size([d IN decisions WHERE d = 'pending']) AS pending,
     size([d IN decisions WHERE d = 'accepted']) AS accepted
SET p.decisions = decisions,
    p.status = CASE WHEN pending > 0 THEN 'open'
                    WHEN accepted >= 2 THEN 'accepted' ELSE 'declined' END,
    p.decidedAt = CASE WHEN pending > 0 THEN null ELSE $at END
WITH p
{{ append_change(p) }}
RETURN {{ proposal_fields(p) }}
