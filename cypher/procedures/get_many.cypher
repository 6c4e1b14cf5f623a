// Workflows and code patterns by id: the thought and the structure kept on it.
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace
RETURN {{ thought_fields(t) }},
  t.procedureTrigger AS procedureTrigger, t.procedureHint AS procedureHint,
  t.procedureSteps AS procedureSteps, t.procedureTemplate AS procedureTemplate,
  t.procedureFiles AS procedureFiles
