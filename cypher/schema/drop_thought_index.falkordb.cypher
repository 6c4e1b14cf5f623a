// Upgrade to schema 3: the vector index on :Thought itself goes (its stale copies are
// what the upgrade is for). "no such index" means it is gone already.
DROP VECTOR INDEX FOR (t:Thought) ON (t.embedding)
