"""The demo corpus: Claude Code sessions and git history that the project generates itself."""
