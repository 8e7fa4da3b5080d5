"""Layer 3: compiled truth."""
