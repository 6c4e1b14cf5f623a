// A page of the namespace's ChangeEvent nodes for export, in id order after $afterId. Every
// property is exported as stored (a map of scalars and lists): an export must carry what
// the store holds, including properties added after this statement was written.
MATCH (n:ChangeEvent)
WHERE n.namespace = $namespace AND n.id > $afterId
RETURN n.id AS id, properties(n) AS properties
ORDER BY n.id
LIMIT $limit
