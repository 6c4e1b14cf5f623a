"""Consent requests: changes to a field about a person, waiting for that person's decision."""
