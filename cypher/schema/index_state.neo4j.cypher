// Whether a named index exists, and its state (a namespace's vector index is looked up
// this way before its first search in a process).
SHOW INDEXES YIELD name, state
WHERE name = $indexName
RETURN name, state
