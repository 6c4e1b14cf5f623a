// The relationships leaving the given MergeProposal nodes (export): each with its type, the
// labels and id of the node it reaches, and its properties as stored.
UNWIND $ids AS id
MATCH (a:MergeProposal {id: id})-[r]->(b)
RETURN a.id AS fromId, type(r) AS type, labels(b) AS toLabels, b.id AS toId,
       properties(r) AS properties
ORDER BY fromId, type, toId
