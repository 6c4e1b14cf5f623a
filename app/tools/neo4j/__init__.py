"""Development helpers that are not part of the service: a local Neo4j server for tests
and for trying the production engine without Docker."""
