"""Episodes: a session's narrative and the thoughts extracted from it."""
