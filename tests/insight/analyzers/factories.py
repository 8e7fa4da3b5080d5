"""Events in the producers' contract shape (see the issue's event contract), built by hand
so the analyzers are tested without waiting for the ingesters."""

from __future__ import annotations

import itertools
from typing import Any

_counter = itertools.count(1)
CWD = "/home/op/work/cortex"


def _id() -> str:
    return f"01TESTEVENT{next(_counter):015d}"


def event(subtype: str, record: dict[str, Any], *, actor: str = "operator", session: str = "s1",
          thread: str = "", parent: str = "", project: str = "cortex",
          occurred_at: str = "2025-06-01T10:00:00Z", source: str = "claude-code",
          **extra: Any) -> dict[str, Any]:
    uuid = f"uuid-{next(_counter)}"
    record = {"uuid": uuid, "sessionId": session, "cwd": CWD, "timestamp": occurred_at,
              "parentUuid": parent or None, **record}
    if thread:
        record.update(isSidechain=True, agentId=thread)
    return {"id": _id(), "source": source, "source_id": uuid, "type": source,
            "subtype": subtype, "occurred_at": occurred_at, "actor": actor, "project": project,
            "correlation": {"session": session, "thread": thread, "parent": parent},
            "payload": record, **extra}


def prompt(text: str, **kw: Any) -> dict[str, Any]:
    record = {"type": "user", "message": {"role": "user", "content": text}}
    record.update(kw.pop("record", {}))
    return event("user.prompt", record, **kw)


def interrupt(*, for_tool: bool = False, **kw: Any) -> dict[str, Any]:
    text = "[Request interrupted by user for tool use]" if for_tool else \
        "[Request interrupted by user]"
    return event("user.interrupt",
                 {"type": "user", "message": {"role": "user",
                                              "content": [{"type": "text", "text": text}]}}, **kw)


def assistant_text(text: str, *, actor: str = "claude-code", **kw: Any) -> dict[str, Any]:
    record = {"type": "assistant", "message": {"id": "msg_1", "role": "assistant",
                                               "content": [{"type": "text", "text": text}]}}
    record.update(kw.pop("record", {}))
    return event("assistant.text", record, actor=actor, **kw)


def tool_use(name: str, tool_input: dict[str, Any], *, use_id: str, actor: str = "claude-code",
             **kw: Any) -> dict[str, Any]:
    block = {"type": "tool_use", "id": use_id, "name": name, "input": tool_input}
    record = {"type": "assistant", "message": {"id": "msg_2", "role": "assistant",
                                               "content": [block]}}
    return event("assistant.tool_use", record, actor=actor, **kw)


def tool_result(content: Any, *, use_id: str, is_error: bool | None = None,
                tool_use_result: Any = None, call: dict[str, Any] | None = None,
                **kw: Any) -> dict[str, Any]:
    """A tool result; `call` (the tool_use event) becomes its parent, as in transcripts."""
    if call is not None:
        kw["parent"] = call["source_id"]
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    record: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": [block]}}
    if tool_use_result is not None:
        record["toolUseResult"] = tool_use_result
    return event("user.tool_result", record, actor="tool", **kw)


def commit(sha: str, message: str, files: list[tuple[str, int, int]], *, author: str = "Anya",
           repo: str = "cortex", parents: tuple[str, ...] = ("p1",)) -> dict[str, Any]:
    data = {"sha": sha, "repo": repo, "author": author, "email": "anya@example.org",
            "committer": author, "committer_email": "anya@example.org",
            "authored_at": "2025-06-01T10:00:00Z", "committed_at": "2025-06-01T10:00:00Z",
            "message": message, "parents": list(parents),
            "files": [{"path": p, "added": a, "removed": r} for p, a, r in files],
            "is_merge": len(parents) > 1}
    return {"id": _id(), "source": "git", "source_id": sha, "type": "git", "subtype": "commit",
            "occurred_at": "2025-06-01T10:00:00Z", "actor": author, "project": repo,
            "correlation": {"session": repo, "thread": "main", "parent": parents[0]},
            "payload": data}


def branch(name: str, tip: str, *, repo: str = "cortex") -> dict[str, Any]:
    return {"id": _id(), "source": "git", "source_id": f"branch:{repo}:{name}:{tip}",
            "type": "git", "subtype": "branch", "occurred_at": "2025-06-01T10:00:00Z",
            "actor": "", "project": repo, "correlation": {"session": repo, "thread": "",
                                                          "parent": ""},
            "payload": {"repo": repo, "name": name, "tip": tip}}


def gh_item(number: int, author: str, title: str, body: str = "", *, kind: str = "pull_request",
            repo: str = "acme/billing") -> dict[str, Any]:
    key = f"{repo}#{number}"
    return {"id": _id(), "source": "gh", "source_id": key, "type": "gh", "subtype": kind,
            "occurred_at": "2025-06-01T10:00:00Z", "actor": author,
            "project": repo.rsplit("/", 1)[-1],
            "correlation": {"session": repo, "thread": f"#{number}", "parent": ""},
            "payload": {"number": number, "title": title, "body": body,
                        "author": {"login": author}, "repo": repo}}


def gh_reply(number: int, author: str, body: str, *, kind: str = "comment",
             repo: str = "acme/billing") -> dict[str, Any]:
    key = f"{repo}#{number}"
    reply_id = next(_counter)
    return {"id": _id(), "source": "gh", "source_id": f"{key}:{kind}:{reply_id}", "type": "gh",
            "subtype": kind, "occurred_at": "2025-06-01T11:00:00Z", "actor": author,
            "project": repo.rsplit("/", 1)[-1],
            "correlation": {"session": repo, "thread": f"#{number}", "parent": key},
            "payload": {"id": str(reply_id), "body": body, "author": {"login": author},
                        "repo": repo}}
