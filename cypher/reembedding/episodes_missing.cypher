// A page of a namespace's episodes without a vector in the pinned space, in id order
// after $after, with the summary their vector is made from.
MATCH (ep:Episode)
WHERE ep.namespace = $namespace AND ep.id > $after AND ep.{{ space(embedding) }} IS NULL
RETURN ep.id AS id, coalesce(ep.summary, ep.title, '') AS text
ORDER BY ep.id
LIMIT $limit
