// Events that concern a thought: its creation and every change to it or naming it (a
// refinement, a merge, a contradiction), events written before subjects were
// generalised included.
MATCH (e:ChangeEvent)-[:CONCERNS]->(t:Thought {id: $subjectId})
WHERE e.namespace = $namespace
RETURN {{ change_fields(e) }}
ORDER BY revision
LIMIT $limit
