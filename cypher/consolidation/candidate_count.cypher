// How many current thoughts the namespace holds and how many of them are candidates: a
// run reads the whole namespace's vectors only when its candidates are a large share.
MATCH (t:Thought)
WHERE t.namespace = $namespace AND {{ current(t) }}
RETURN count(t) AS current,
       sum(CASE WHEN {{ consolidation_candidate(t) }} THEN 1 ELSE 0 END) AS candidates
