"""Operational events (seed 001, section 14): what the service did, per namespace."""
