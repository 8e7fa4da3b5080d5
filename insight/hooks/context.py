"""What SessionStart and UserPromptSubmit print: the context block Claude Code adds to the
session (docs/context.md). One POST to `/api/context/` under the hook's short timeout, sent
first and read last; when Cortex is down, slow or refuses, nothing is printed and the
session goes on."""

from __future__ import annotations

import os
import re
import time
from pathlib import PurePath
from typing import Any

from insight.hooks.client import Pending, Reply, dumps_light, post_start
from insight.hooks.config import DEFAULT_SESSION_START_TOKENS, HookConfig

PROMPT_BUDGET = int(os.environ.get("CORTEX_HOOK_PROMPT_BUDGET") or 800)
# A prompt shorter than this ("ok", "go on", "yes") recalls nothing worth its tokens.
MIN_PROMPT_CHARS = int(os.environ.get("CORTEX_HOOK_MIN_PROMPT_CHARS") or 12)
# The query is the prompt's head, cut at a word: full-text reads all of it and the
# encoders its first `recall.vector_query_chars`, a long pasted prompt's words cost
# full-text rows, and the hook waits 0.4 s at most.
PROMPT_QUERY_CHARS = int(os.environ.get("CORTEX_HOOK_PROMPT_QUERY_CHARS") or 500)


def _project(hook_input: dict[str, Any]) -> str:
    cwd = hook_input.get("cwd")
    return PurePath(cwd).name if isinstance(cwd, str) and cwd else ""


def context_request(event: str, hook_input: dict[str, Any], *,
                    session_start_tokens: int = DEFAULT_SESSION_START_TOKENS
                    ) -> dict[str, Any] | None:
    """The body to ask Cortex for, or None when this event asks nothing. SessionStart asks
    for at most `session_start_tokens` (the operator's one setting, HookConfig's)."""
    project = _project(hook_input)
    session = hook_input.get("session_id")
    base = {"agent": "claude-code", "project": project,
            "session": session if isinstance(session, str) else ""}
    if event == "SessionStart":
        query = f"{project} pitfalls instructions" if project else "pitfalls instructions"
        return {**base, "query": query, "budget_tokens": session_start_tokens}
    if event == "UserPromptSubmit":
        prompt = hook_input.get("prompt")
        if not isinstance(prompt, str) or len(prompt.strip()) < MIN_PROMPT_CHARS:
            return None
        return {**base, "query": prompt_query(prompt), "budget_tokens": PROMPT_BUDGET}
    return None


# Claude Code's IDE integration opens a prompt with what the editor shows, in the same words
# every time ("<ide_opened_file>The user opened the file /src/auth.py in the IDE. This may or
# may not be related to the current task.</ide_opened_file>"): the path and the selected
# text are the operator's context; the tags and sentences around them mean nothing to a
# recall and were most of such a prompt's trigram grams (each a scan of the alias index).
_IDE_WORDS = re.compile(
    r"</?ide_[a-z_]+>|The user opened the file |The user selected the lines \d+ to \d+ from "
    r"| in the IDE\.|This may or may not be related to the current task\.")


def prompt_query(prompt: str, limit: int = PROMPT_QUERY_CHARS) -> str:
    """The prompt's first `limit` characters, without the IDE's own words, cut after its last
    whole word when there is one in the second half."""
    text = _IDE_WORDS.sub(" ", prompt).strip()
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = max(head.rfind(" "), head.rfind("\n"))
    return head[:space].rstrip() if space > limit // 2 else head


def context_ask(event: str, hook_input: dict[str, Any], config: HookConfig, *,
                deadline: float) -> Pending | None:
    """The context request, sent now (Cortex assembles it while the hook reads the
    transcript and flushes the spool), or None when this event asks nothing."""
    body = context_request(event, hook_input, session_start_tokens=config.session_start_tokens)
    timeout = min(config.timeout, deadline - time.monotonic())
    if body is None or not config.token or timeout <= 0.01:
        return None
    return post_start(f"{config.url}/api/context/", dumps_light(body), token=config.token,
                      timeout=timeout)


def context_text(pending: Pending | None) -> str:
    """The block to print: Cortex's answer, or nothing when it is down, slow or refuses."""
    return reply_text(pending.reply() if pending is not None else None)


def reply_text(reply: Reply | None) -> str:
    if reply is None or reply.status != 200 or not isinstance(reply.body, dict):
        return ""
    context = reply.body.get("context")
    return context if isinstance(context, str) else ""


def context_block(event: str, hook_input: dict[str, Any], config: HookConfig, *,
                  deadline: float) -> str:
    return context_text(context_ask(event, hook_input, config, deadline=deadline))
