// The ids among $ids that the time view shows (the filter of neighbours/nearest): what
// the in-memory neighbours of a run keep, so a thought merged or superseded since the run
// read the vectors is never anybody's neighbour.
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND {{ visible(t) }}
RETURN t.id AS id
