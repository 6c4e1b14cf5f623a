// thought.list for one kind (decisions, preferences, tasks, procedures: few in a large
// namespace, and what context assembly lists every time): the (namespace, kind) lookup
// comes first, alone, so that FalkorDB answers it from its kind index instead of
// intersecting the namespace with the cursor's createdAt range (a read of every thought),
// and Neo4j, told to, from its (namespace, kind) index (its planner took the
// (namespace, createdAt) one for the cursor and read every thought of the namespace).
// Facts, most thoughts and kindless in older stores, keep to thought.list.
MATCH (t:Thought)
{{ use_index(t, Thought, namespace, kind) }}
WHERE t.kind = $kind AND t.namespace = $namespace
WITH t
WHERE {{ listing(t) }}
RETURN {{ thought_fields(t) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
