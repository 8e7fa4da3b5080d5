"""Free-text memories: raw events first, consolidated into Memory rows linked to entities."""
