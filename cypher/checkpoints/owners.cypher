// Whose each checkpoint is (what the change log shows a user), without its data.
MATCH (c:Checkpoint)
WHERE c.id IN $ids AND c.namespace = $namespace
RETURN c.id AS id, c.user AS user
