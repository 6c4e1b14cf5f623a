"""Store repositories per aggregate (topics, contradictions, episodes, runs, retention,
supersession, links, merges), each over the one executor a store provides and each
following its own folder of statements in ``cypher/``."""
