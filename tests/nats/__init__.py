"""NATS bus tests."""
