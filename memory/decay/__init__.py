"""The decay math (pure) and its SQL mirror."""
