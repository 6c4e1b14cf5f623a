// A page of the namespace's checkpoints for export, in id order after $afterId, every
// property as stored (transfer.page_<kind> for the other labels: cypher/transfer/page).
// Every saved checkpoint has a user, a thread and a revision: naming them lets Neo4j seek
// its thread index (namespace, user, threadId, revision) instead of scanning the label.
MATCH (n:Checkpoint)
WHERE n.namespace = $namespace AND n.user IS NOT NULL AND n.threadId IS NOT NULL
  AND n.revision IS NOT NULL AND n.id > $afterId
RETURN n.id AS id, properties(n) AS properties
ORDER BY n.id
LIMIT $limit
