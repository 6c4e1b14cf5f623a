// Neo4j populates new indexes (vector and full-text above all) in the background: block
// until every index is ONLINE, or fail after the timeout, before the store serves queries.
CALL db.awaitIndexes($timeoutSeconds);
