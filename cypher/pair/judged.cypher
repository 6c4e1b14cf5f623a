// Which of these pair fingerprints were judged since $since (or for good): they are not
// judged again, so a scan of an unchanged graph costs no judge calls.
UNWIND $ids AS pairId
MATCH (p:PairCheck {id: pairId})
WHERE p.namespace = $namespace AND (p.permanent = true OR p.judgedAt >= $since)
RETURN p.id AS id
