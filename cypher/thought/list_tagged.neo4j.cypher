// thought.list for one tag (conventions in context assembly, integrations' items). Neo4j
// cannot index list membership in a range index, so the tag is found through the
// keyword-analysed full-text index on the tags (schema/bootstrap: each tag one token;
// $tagQuery is the tag as one escaped term, store/fulltext.whole_value_query): the read
// grows with the thoughts carrying the tag, not with the namespace. The listing filter
// checks the tag itself again.
CALL db.index.fulltext.queryNodes('thought_tags', $tagQuery) YIELD node AS t
WITH t
WHERE t.namespace = $namespace AND {{ listing(t) }}
RETURN {{ thought_fields(t) }}
ORDER BY createdAt DESC, id DESC
LIMIT $limit
