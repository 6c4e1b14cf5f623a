"""Topics: thoughts grouped by meaning, each with a lazily written summary."""
