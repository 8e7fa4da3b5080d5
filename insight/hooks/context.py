"""What SessionStart prints: the context block Claude Code adds to the session."""

from __future__ import annotations

from typing import Any

from insight.hooks.config import HookConfig


def context_block(hook_input: dict[str, Any], config: HookConfig, *, deadline: float) -> str:
    """Nothing yet.

    The seam for the Context issue: POST `{config.url}/api/context/` with
    `{"query": ..., "agent": "claude-code", "project": <basename of hook_input["cwd"]>,
    "budget_tokens": ...}` under the same short timeout, and return its `context` markdown
    (empty when Cortex is down: a session never waits for its memory).
    """
    return ""
