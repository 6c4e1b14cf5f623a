"""Re-embedding without downtime: every vector made again by another embedder in the
store's other vector slot while requests use the active one, then one switch
(docs/reembedding.md)."""
