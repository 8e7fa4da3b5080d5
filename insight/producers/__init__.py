"""Producers: each reads one outside source and writes MemoryEvents through Layer 1.

The parsing modules here (`jsonl`, `claude_code_records`, `claude_code_reader`,
`git_log`, `gh_export`) import nothing from Django, so the live hooks can reuse them
without starting the embedded servers.
"""
