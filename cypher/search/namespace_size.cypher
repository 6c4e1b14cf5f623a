// How many thoughts the namespace holds, counted up to $cap: the N of the keyword side's
// BM25 (app/domain/ranking/keywords.py). Past the cap every word's weight is already
// set by how rare it is; the count is remembered for a minute per process.
MATCH (t:Thought)
WHERE t.namespace = $namespace
WITH t
LIMIT $cap
RETURN count(t) AS size
