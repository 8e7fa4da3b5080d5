"""Live capture from Claude Code hooks. Django-free: it must start fast and never block.

`python -m insight.hooks <Event>` (or `cortex hook <Event>`) reads the hook's JSON on
stdin, turns the transcript's new lines into events (the same events `cortex ingest
claude-code` produces), queues them in a spool under CORTEX_HOME and posts the spool to
Cortex with a short timeout. Cortex down: the spool waits for the next call. Exit code 0.
"""
