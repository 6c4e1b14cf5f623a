"""Domain models, rules and the single error tree. No I/O lives here."""
