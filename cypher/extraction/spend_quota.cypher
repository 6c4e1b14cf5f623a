// Takes one extraction call from a user's daily allowance: the count after it, or no row
// when the day's allowance is spent. One node per namespace, user and day.
MERGE (q:ExtractionQuota {id: $id})
ON CREATE SET q.namespace = $namespace, q.user = $user, q.day = $day, q.count = 0
WITH q
WHERE q.namespace = $namespace AND q.count < $cap
SET q.count = q.count + 1
RETURN q.count AS count
