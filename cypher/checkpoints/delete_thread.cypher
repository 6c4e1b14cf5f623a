// Up to $limit of a user's checkpoints in the thread $threadId (with $prefix: in every
// thread of theirs whose id starts with it) deleted, oldest first, with one event naming
// what was deleted; no row and no event when there were none. Oldest first: a thread whose
// deletion stopped between batches still loads its latest checkpoint. The event concerns no node, its subjects being gone (like a
// purge's).
// (Every saved checkpoint has a revision: naming it lets Neo4j seek its thread index.)
MATCH (c:Checkpoint)
WHERE c.namespace = $namespace AND c.user = $user AND c.threadId STARTS WITH $threadId
  AND c.revision IS NOT NULL AND ($prefix OR c.threadId = $threadId)
WITH c
ORDER BY c.revision
LIMIT $limit
WITH collect(c) AS doomed
WHERE size(doomed) > 0
WITH doomed, size(doomed) AS deleted
UNWIND doomed AS c
DETACH DELETE c
// Back to one row; none when nothing was found (count(*) would make one of 0).
WITH DISTINCT deleted
{{ append_event() }}
RETURN deleted
