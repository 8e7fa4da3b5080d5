"""Template tags of the operator's console."""
