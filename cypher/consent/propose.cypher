// A proposed change to a person field, or one more signal for the same change proposed
// before (the id is the change's: the value and the values it replaces). A rejected
// request stays rejected; an expired one is proposed again. The event is appended only
// when something changed: no row for a retry that adds nothing.
MERGE (r:ConsentRequest {id: $id})
ON CREATE SET r.namespace = $namespace, r.person = $person, r.field = $field,
  r.sensitivity = $sensitivity, r.status = 'pending', r.value = $value, r.patch = $patch,
  r.thoughtId = $thoughtId, r.replacesIds = $replacesIds, r.evidence = $evidence,
  r.proposedById = $proposedById, r.proposedByName = $proposedByName, r.proposedByUser = $proposedByUser,
  r.signals = [],
  r.createdAt = $at, r.expiresAt = $expiresAt
WITH r, r.status = 'expired' AS reopened
WHERE r.namespace = $namespace
// Reopened: pending again, from this proposal (its proposer and evidence), undecided.
SET r.status = CASE WHEN reopened THEN 'pending' ELSE r.status END,
    r.signals = CASE WHEN reopened THEN [] ELSE r.signals END,
    r.expiresAt = CASE WHEN reopened THEN $expiresAt ELSE r.expiresAt END,
    r.createdAt = CASE WHEN reopened THEN $at ELSE r.createdAt END,
    r.proposedById = CASE WHEN reopened THEN $proposedById ELSE r.proposedById END,
    r.proposedByName = CASE WHEN reopened THEN $proposedByName ELSE r.proposedByName END,
    r.proposedByUser = CASE WHEN reopened THEN $proposedByUser ELSE r.proposedByUser END,
    r.evidence = CASE WHEN reopened THEN $evidence ELSE r.evidence END,
    r.decidedAt = CASE WHEN reopened THEN null ELSE r.decidedAt END,
    r.decidedBy = CASE WHEN reopened THEN null ELSE r.decidedBy END,
    r.note = CASE WHEN reopened THEN null ELSE r.note END
WITH r, r.status = 'pending' AND NOT $signal IN r.signals AS counted
SET r.signals = CASE WHEN counted THEN r.signals + [$signal] ELSE r.signals END
WITH r, counted
WHERE counted
{{ append_change(r) }}
RETURN {{ consent_fields(r) }}
