"""Context assembly: tiered context, predictive prefetch and the session-start block."""
