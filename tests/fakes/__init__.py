"""Real, in-process stand-ins for external services (no mocks of the code under test)."""
