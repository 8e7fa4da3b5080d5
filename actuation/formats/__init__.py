"""The files Cortex edits, in the formats Claude Code reads (docs/actuation.md): pure
functions from a file's current text to its new text, and the unified diff between them."""
