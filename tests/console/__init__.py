"""The operator's console (admin) tests."""
