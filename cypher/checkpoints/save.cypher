// A checkpoint saved in its thread, with its event; its revision (the event's) orders the
// thread's history. No row when it exists already: a retried save writes nothing twice.
// (Its parent was read by the service first: a thread deleted in between leaves it
// naming a parent that is gone.)
MERGE (c:Checkpoint {id: $id})
ON CREATE SET c.checkpointId = $checkpointId, c.namespace = $namespace, c.user = $user,
  c.threadId = $threadId, c.parentId = $parentId, c.data = $data, c.metadata = $metadata,
  c.sizeBytes = $sizeBytes, c.createdAt = $at
WITH c
WHERE c.revision IS NULL
{{ append_change(c) }}
SET c.revision = ev.revision
RETURN {{ checkpoint_fields(c) }}
