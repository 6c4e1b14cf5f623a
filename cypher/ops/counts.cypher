// How many events of each node, op and status fell in each $bucket ms since $since: what
// changed, and when, without the logs.
MATCH (e:OpsEvent)
WHERE e.namespace = $namespace AND e.at >= $since
WITH e.at - e.at % $bucket AS bucketStart, e.node AS node, e.op AS op, e.status AS status
RETURN bucketStart, node, op, status, count(*) AS count
ORDER BY bucketStart, node, op, status
