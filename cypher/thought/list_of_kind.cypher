// thought.list for one kind (decisions, preferences, tasks, procedures: few in a large
// namespace, and what context assembly lists every time): the (namespace, kind) lookup
// comes first, alone, so that FalkorDB answers it from its kind index instead of
// intersecting the namespace with the cursor's createdAt range (a read of every thought).
// Facts, most thoughts and kindless in older stores, keep to thought.list.
MATCH (t:Thought)
WHERE t.kind = $kind AND t.namespace = $namespace
WITH t
WHERE {{ listing(t) }}
RETURN {{ thought_fields(t) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
