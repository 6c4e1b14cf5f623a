// A pending request decided: approved or applied (then the caller writes the change),
// rejected or expired, with the decision's event. No row when it is not pending.
MATCH (r:ConsentRequest {id: $id})
WHERE r.namespace = $namespace AND r.status = 'pending'
SET r.status = $status, r.decidedAt = $at, r.decidedBy = $decidedBy, r.note = $note
WITH r
{{ append_change(r) }}
RETURN {{ consent_fields(r) }}
