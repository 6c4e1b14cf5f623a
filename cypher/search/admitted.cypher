// The thoughts among $ids that pass every filter of the search and the time view, with
// their retention: graph expansion's newcomers (session neighbours, keyword sub-query
// hits) are held to the same filters, allowlist and tiers as the search's own candidates.
MATCH (t:Thought)
WHERE t.id IN $ids AND t.namespace = $namespace AND {{ visible(t) }} AND {{ search_filter(t) }}
RETURN t.id AS id, {{ retention(t) }} AS retention
