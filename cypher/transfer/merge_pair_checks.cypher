// Restores a batch of PairCheck nodes (import). MERGE on the exported id, properties set
// only on creation: a second import of the same file changes nothing.
UNWIND $rows AS row
MERGE (n:PairCheck {id: row.id})
ON CREATE SET n += row.properties
RETURN count(n) AS merged
