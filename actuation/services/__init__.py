"""Writes of actuation: repositories, proposals and their decisions, applying, outcomes."""
