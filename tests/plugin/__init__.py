"""The Claude Code plugin: its hooks, its manifest, the real client, the service unit."""
