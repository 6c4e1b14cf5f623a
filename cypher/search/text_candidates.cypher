// The full-text side of a hybrid search: thoughts whose content matches the escaped
// $textQuery (app/store/fulltext.py), filtered like the vector side, best first, with
// their cosine similarity to the query so every hit is on one similarity scale. The
// $textCandidates best matches are taken before the filters (a common word matches most
// of a namespace, and a filter costs a property read per node; Neo4j's index keeps only
// those, FalkorDB's yields all and the LIMIT takes them); `seen` says how many, so
// the repository widens, as on the vector side, when the filters left too few. A last
// row without a thought (id null; $rowLimit is one more than the thoughts asked for)
// carries `seen` when few passed: an answer with no match is not a saturated one. A
// candidate carries what ranking reads; the hits are read whole once ranked.
{{ fulltext_query_nodes(thought_content, Thought, $textQuery, $textCandidates) }}
WITH node, score
ORDER BY score DESC
LIMIT $textCandidates
WITH collect({node: node, score: score}) AS found
UNWIND found + [null] AS f
WITH f.node AS t, f.score AS score, size(found) AS seen
WHERE t IS NULL OR (t.namespace = $namespace AND {{ visible(t) }} AND {{ search_filter(t) }})
WITH t, score, seen
ORDER BY t IS NULL, score DESC, t.id
LIMIT $rowLimit
RETURN {{ ranking_fields(t) }}, score AS textScore, seen,
       CASE WHEN t IS NULL THEN null
            ELSE {{ cosine(t.{{ space(embedding) }}, $embedding) }} END AS similarity,
       {{ retention(t) }} AS retention
