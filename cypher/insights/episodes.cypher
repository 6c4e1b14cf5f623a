// Each person's newest episode of their own written after their since ($people: maps of
// person and since): its narrative and summary, the recent conversation an insight reads.
UNWIND $people AS p
MATCH (ep:Episode)
WHERE ep.namespace = $namespace AND ep.ownerId = p.person AND ep.createdAt > p.since
WITH p.person AS person, ep
ORDER BY ep.createdAt DESC, ep.id DESC
WITH person, collect(ep)[0] AS ep
RETURN person, ep.narrative AS narrative, ep.summary AS summary, ep.createdAt AS createdAt
