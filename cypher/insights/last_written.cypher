// When the newest insight about each of $people was written, whatever became of it since
// (forgotten, superseded: it was written all the same). No row for a person without one.
UNWIND $people AS person
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.about = person AND t.kind = 'insight'
RETURN person, max(t.createdAt) AS writtenAt
