"""The memory explorer: a page at /explore that reads and decides through the GraphQL API."""
