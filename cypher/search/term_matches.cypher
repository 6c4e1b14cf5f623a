// How many of the namespace's thoughts each escaped query word matches, counted up to
// $cap: enough to tell a rare word from a common one (app/store/fulltext.py,
// planned_query) while reading at most $cap matches per word. Without an ORDER BY the
// full-text index streams its matches, so the LIMIT ends the read early.
UNWIND $terms AS term
{{ call_with(term) }}
  {{ fulltext_query_nodes(thought_content, Thought, term) }}
  WITH node
  WHERE node.namespace = $namespace
  WITH node
  LIMIT $cap
  RETURN count(node) AS matches
}
RETURN term, matches
