"""`gh pr list --json ...` / `gh issue list --json ...` exports to events. Django-free.

A pull request or an issue is one event; each of its reviews and comments is also its
own event, pointing back at it through `correlation.parent`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

import orjson

from insight.producers.claude_code_records import STRING_LIMIT, cut_long_strings

SOURCE = "gh"
_URL = re.compile(r"https?://[^/]+/([^/]+/[^/]+)/(pull|issues)/(\d+)")
_PR_KEYS = frozenset({"headRefName", "baseRefName", "mergedAt", "isDraft", "reviews",
                      "mergeable", "reviewDecision", "additions", "deletions", "mergeCommit"})


WHAT = "the JSON of `gh pr list --json ...` or `gh issue list --json ...`"


class NotAnExport(ValueError):
    """The file is not a gh export, or not one Cortex can key: nothing of it is read."""


def gh_export_items(data: bytes, *, repo: str = "") -> list[dict[str, Any]]:
    """Every pull request or issue of an export, each checked before any is stored: a file
    that is not JSON, an object without a number (a package.json, a gh api response) or,
    without `repo`, without its url (the repository its key names) is refused whole."""
    try:
        items = list(_gh_items(data))
    except orjson.JSONDecodeError:
        raise NotAnExport(f"not JSON: give {WHAT}") from None
    for position, item in enumerate(items, start=1):
        match = _URL.match(str(item.get("url") or ""))
        if not (match or str(item.get("number") or "").isdigit()):
            raise NotAnExport(f"item {position} has no number: give {WHAT}, with number "
                              "among its fields")
        if not (match or repo):
            raise NotAnExport(f"item {position} has no url: add url to the fields of --json, "
                              "or name the repository with --repo owner/name")
    return items


def _gh_items(data: bytes) -> Iterator[dict[str, Any]]:
    """The objects of an export: a JSON array, one object, or JSON lines."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        for line in data.splitlines():
            if line.strip():
                yield from _objects(orjson.loads(line))
        return
    yield from _objects(value)


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
    elif isinstance(value, list):
        yield from (v for v in value if isinstance(v, dict))


def gh_events(item: dict[str, Any], *, repo: str = "") -> list[dict[str, Any]]:
    """The item's event, then one per review and per comment."""
    match = _URL.match(str(item.get("url") or ""))
    repo = repo or (match.group(1) if match else "")
    kind = _kind(item, match)
    number = item.get("number") or (match.group(3) if match else "")
    key = f"{repo}#{number}"
    project = repo.rsplit("/", 1)[-1]
    events = [_event(item, source_id=key, subtype=kind, repo=repo, project=project,
                     thread=f"#{number}", parent="", when=item.get("createdAt"))]
    for review in _list(item.get("reviews")):
        events.append(_event(
            review, source_id=f"{key}:review:{_id(review)}", subtype="review", repo=repo,
            project=project, thread=f"#{number}", parent=key,
            when=review.get("submittedAt") or review.get("createdAt"),
        ))
    for comment in _list(item.get("comments")):
        events.append(_event(
            comment, source_id=f"{key}:comment:{_id(comment)}", subtype="comment", repo=repo,
            project=project, thread=f"#{number}", parent=key, when=comment.get("createdAt"),
        ))
    return events


def _kind(item: dict[str, Any], match: re.Match[str] | None) -> str:
    if match:
        return "pull_request" if match.group(2) == "pull" else "issue"
    return "pull_request" if _PR_KEYS & item.keys() else "issue"


def _list(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict) and isinstance(value.get("nodes"), list):
        value = value["nodes"]
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _id(obj: dict[str, Any]) -> str:
    if obj.get("id"):
        return str(obj["id"])
    basis = orjson.dumps([_login(obj), obj.get("createdAt"), obj.get("body")])
    return hashlib.sha256(basis).hexdigest()[:16]


def _login(obj: dict[str, Any]) -> str:
    author = obj.get("author")
    if isinstance(author, dict):
        return str(author.get("login") or "")
    return str(author or "")


def _event(obj: dict[str, Any], *, source_id: str, subtype: str, repo: str, project: str,
           thread: str, parent: str, when: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "source_id": source_id,
        "type": SOURCE,
        "subtype": subtype,
        "actor": _login(obj),
        "project": project,
        "correlation": {"session": repo, "thread": thread, "parent": parent},
        "payload": {**cut_long_strings(obj, STRING_LIMIT, []), "repo": repo},
    }
    if isinstance(when, str) and when:
        event["occurred_at"] = when
    return event
