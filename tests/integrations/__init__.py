"""Tests of the integrations: clients of the running service."""
