// Checkpoints by node id (a user's, in a thread: the id says which).
MATCH (c:Checkpoint)
WHERE c.id IN $ids AND c.namespace = $namespace
RETURN {{ checkpoint_fields(c) }}
