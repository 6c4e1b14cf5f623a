// The vector side of a hybrid search: the namespace's nearest thoughts that pass every
// filter of the search (search_filter) and the time view. The index answers its
// $candidates nearest before any filter can apply, so the service asks for more than it
// needs and widens when the filters left too few while the index was saturated: `seen`
// says how many the index answered (app/features/search/repository.py), also on a last
// row without a thought (id null; $rowLimit is one more than the thoughts asked for)
// when few passed. Two statements: search.vector_candidates projects what ranking reads
// (a hybrid search ranks a few hundred, app/domain/ranking/scoring.py), and
// search.vector_thoughts whole thoughts (the nearest thoughts of a write, a plain answer).
//@ vector_candidates: fields=ranking_fields
//@ vector_thoughts: fields=thought_fields
{{ vector_query_namespace_nodes(Thought, {{ space(embedding) }}, $candidates, $embedding) }}
WITH collect({node: node, score: score}) AS found
UNWIND found + [null] AS f
WITH f.node AS t, f.score AS score, size(found) AS seen
WHERE t IS NULL OR (t.namespace = $namespace AND {{ visible(t) }} AND {{ search_filter(t) }})
WITH t, score, seen
ORDER BY t IS NULL, {{ nearest_first(score) }}, t.id
LIMIT $rowLimit
RETURN {{ {{ fields }}(t) }}, score AS rawScore, {{ retention(t) }} AS retention, seen
