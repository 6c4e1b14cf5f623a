// Upgrade to schema 3: the vector indexes on :Thought and :Topic themselves go (their stale
// copies are what the upgrade is for; topics are searched by an exact scan). "no such
// index" means one is gone already.
DROP VECTOR INDEX FOR (t:Thought) ON (t.embedding);
DROP VECTOR INDEX FOR (tp:Topic) ON (tp.embedding);
