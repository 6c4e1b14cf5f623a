// The full-text side of a hybrid search: thoughts whose content matches the escaped
// $textQuery (app/store/fulltext.py), filtered like the vector side, best first, with
// their cosine similarity to the query so every hit is on one similarity scale. The
// $textCandidates best matches are taken before the filters (a common word matches most
// of a namespace, and a filter costs a property read per node); `seen` says how many, so
// the repository widens, as on the vector side, when the filters left too few.
{{ fulltext_query_nodes(thought_content, Thought, $textQuery) }}
WITH node, score
ORDER BY score DESC
LIMIT $textCandidates
WITH collect({node: node, score: score}) AS found
UNWIND found AS f
WITH f.node AS t, f.score AS score, size(found) AS seen
WHERE t.namespace = $namespace AND {{ visible(t) }} AND {{ search_filter(t) }}
WITH t, score, seen
ORDER BY score DESC, t.id
LIMIT $k
RETURN {{ thought_fields(t) }}, score AS textScore, seen,
       {{ cosine(t.{{ space(embedding) }}, $embedding) }} AS similarity, {{ retention(t) }} AS retention
