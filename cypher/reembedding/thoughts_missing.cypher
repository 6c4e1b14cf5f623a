// A page of a namespace's thoughts without a vector in the pinned space, in id order
// after $after: what a re-embed embeds next (a resumed run finds what is left).
MATCH (t:Thought)
WHERE t.namespace = $namespace AND t.id > $after AND t.{{ space(embedding) }} IS NULL
RETURN t.id AS id, t.content AS text
ORDER BY t.id
LIMIT $limit
