// The full-text side of a hybrid search: thoughts whose content matches the escaped
// $textQuery (app/retrieval/escaping.py), filtered like the vector side, best first, with
// their cosine similarity to the query so every hit is on one similarity scale. Both
// engines' full-text calls return every match, so the filters lose nothing here.
{{ fulltext_query_nodes(thought_content, Thought, $textQuery) }}
WITH node AS t, score
WHERE t.namespace = $namespace AND {{ visible(t) }} AND {{ search_filter(t) }}
WITH t, score
ORDER BY score DESC, t.id
LIMIT $k
RETURN {{ thought_fields(t) }}, score AS textScore,
       {{ cosine(t.embedding, $embedding) }} AS similarity, {{ retention(t) }} AS retention
