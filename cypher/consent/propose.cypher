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
SET r.status = CASE WHEN reopened THEN 'pending' ELSE r.status END,
    r.signals = CASE WHEN reopened THEN [] ELSE r.signals END,
    r.expiresAt = CASE WHEN reopened THEN $expiresAt ELSE r.expiresAt END,
    r.decidedAt = CASE WHEN reopened THEN null ELSE r.decidedAt END
WITH r, r.status = 'pending' AND NOT $signal IN r.signals AS counted
SET r.signals = CASE WHEN counted THEN r.signals + [$signal] ELSE r.signals END
WITH r, counted
WHERE counted
{{ append_change(r) }}
RETURN {{ consent_fields(r) }}
