// The current values of person fields: for each (person, field) key, the current thoughts
// about that person whose category is the field, in every scope (the person decides a
// change, whoever wrote the value).
UNWIND $keys AS key
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.about = key.person
  AND toLower(t.category) = key.field AND {{ current(t) }}
RETURN key.person AS person, key.field AS field, {{ thought_fields(t) }}
