// A user's checkpoints in a thread, newest first, saved before $beforeRevision (null:
// from the newest).
MATCH (c:Checkpoint)
WHERE c.namespace = $namespace AND c.user = $user AND c.threadId = $threadId
  AND c.revision < coalesce($beforeRevision, 9223372036854775807)
WITH c
ORDER BY c.revision DESC
LIMIT $limit
RETURN {{ checkpoint_fields(c) }}
